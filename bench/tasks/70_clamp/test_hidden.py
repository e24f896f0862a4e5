from collections.abc import Callable

from solution import clamp


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_value_inside_the_range() -> None:
    assert clamp(5, 0, 10) == 5
    assert clamp(-3, -10, 10) == -3


def test_value_below_low() -> None:
    assert clamp(-4, 0, 10) == 0
    assert clamp(1, 2, 3) == 2


def test_value_above_high() -> None:
    assert clamp(15, 0, 10) == 10
    assert clamp(100, -5, -1) == -1


def test_bounds_and_equal_limits() -> None:
    assert clamp(0, 0, 10) == 0
    assert clamp(10, 0, 10) == 10
    assert clamp(7, 4, 4) == 4


def test_floats() -> None:
    assert clamp(0.5, 0.0, 1.0) == 0.5
    assert clamp(1.5, 0.0, 1.0) == 1.0
    assert clamp(-0.25, 0.0, 1.0) == 0.0


def test_low_greater_than_high_raises() -> None:
    assert raises(ValueError, clamp, 5, 10, 0)
