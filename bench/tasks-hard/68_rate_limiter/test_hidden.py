from collections.abc import Callable

from solution import RateLimiter


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_example() -> None:
    limiter = RateLimiter(2, 10)
    assert [limiter.allow(t) for t in (0, 1, 5, 10, 11, 11)] == [
        True,
        True,
        False,
        True,
        True,
        False,
    ]
    assert limiter.remaining(21) == 2


def test_window_edge_is_excluded() -> None:
    limiter = RateLimiter(1, 5)
    assert limiter.allow(3) is True
    assert limiter.allow(7) is False
    assert limiter.allow(8) is True
    assert limiter.allow(12) is False
    assert limiter.allow(13) is True


def test_refused_events_are_not_recorded() -> None:
    limiter = RateLimiter(1, 5)
    assert limiter.allow(0) is True
    assert limiter.allow(3) is False
    assert limiter.allow(4) is False
    assert limiter.allow(5) is True


def test_same_timestamp_many_times() -> None:
    limiter = RateLimiter(3, 1)
    assert [limiter.allow(7) for _ in range(5)] == [True, True, True, False, False]
    assert limiter.allow(8) is True


def test_remaining_does_not_record() -> None:
    limiter = RateLimiter(3, 4)
    assert limiter.remaining(0) == 3
    assert limiter.remaining(0) == 3
    limiter.allow(0)
    limiter.allow(2)
    assert limiter.remaining(2) == 1
    assert limiter.remaining(3) == 1
    assert limiter.remaining(4) == 2
    assert limiter.remaining(6) == 3
    assert limiter.allow(6) is True


def test_limiters_are_independent() -> None:
    first, second = RateLimiter(1, 10), RateLimiter(1, 10)
    assert first.allow(0) is True
    assert second.allow(0) is True
    assert first.allow(1) is False


def test_bad_settings_raise() -> None:
    assert raises(ValueError, RateLimiter, 0, 5)
    assert raises(ValueError, RateLimiter, 2, 0)
    assert raises(ValueError, RateLimiter, -1, -1)
