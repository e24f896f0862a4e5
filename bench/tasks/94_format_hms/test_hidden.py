from collections.abc import Callable

from solution import format_hms


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_hours_minutes_seconds() -> None:
    assert format_hms(3725) == "1:02:05"
    assert format_hms(45296) == "12:34:56"


def test_minutes_and_seconds_are_padded() -> None:
    assert format_hms(65) == "0:01:05"
    assert format_hms(3600) == "1:00:00"
    assert format_hms(59) == "0:00:59"


def test_zero() -> None:
    assert format_hms(0) == "0:00:00"


def test_hours_go_past_a_day() -> None:
    assert format_hms(90061) == "25:01:01"
    assert format_hms(359999) == "99:59:59"
    assert format_hms(360000) == "100:00:00"


def test_negative_raises() -> None:
    assert raises(ValueError, format_hms, -1)
    assert raises(ValueError, format_hms, -3600)
