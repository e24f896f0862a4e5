import math
from collections.abc import Callable

from solution import percent_of


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_exact_percentages() -> None:
    assert math.isclose(percent_of(1, 4), 25.0)
    assert math.isclose(percent_of(50, 50), 100.0)
    assert math.isclose(percent_of(0, 7), 0.0)


def test_rounded_to_one_decimal() -> None:
    assert math.isclose(percent_of(1, 3), 33.3)
    assert math.isclose(percent_of(2, 3), 66.7)


def test_more_than_the_whole() -> None:
    assert math.isclose(percent_of(5, 2), 250.0)


def test_floats_and_negatives() -> None:
    assert math.isclose(percent_of(0.5, 2.0), 25.0)
    assert math.isclose(percent_of(-1, 4), -25.0)


def test_zero_whole_raises() -> None:
    assert raises(ValueError, percent_of, 3, 0)
