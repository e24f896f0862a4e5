import math
from collections.abc import Callable

from solution import convert_length


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def close(value: object, expected: float) -> bool:
    return isinstance(value, int | float) and math.isclose(value, expected, abs_tol=1e-9)


def test_each_unit() -> None:
    assert close(convert_length(1234, "mm"), 1.234)
    assert close(convert_length(85, "cm"), 0.85)
    assert close(convert_length(12, "m"), 12.0)
    assert close(convert_length(3.5, "km"), 3500.0)


def test_case_and_spaces_are_ignored() -> None:
    assert close(convert_length(2, " Km"), 2000.0)
    assert close(convert_length(40, "CM "), 0.4)
    assert close(convert_length(5, "M"), 5.0)


def test_zero_and_negative() -> None:
    assert close(convert_length(0, "km"), 0.0)
    assert close(convert_length(-5, "cm"), -0.05)


def test_rounded_to_three_places() -> None:
    assert close(convert_length(1, "mm"), 0.001)
    assert close(convert_length(0.4, "mm"), 0.0)


def test_unknown_unit_raises() -> None:
    assert raises(ValueError, convert_length, 3, "ft")
    assert raises(ValueError, convert_length, 3, "in")
    assert raises(ValueError, convert_length, 3, "")
