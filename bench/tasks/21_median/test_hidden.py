import math
from collections.abc import Callable

from solution import median


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_odd_count() -> None:
    assert median([3, 1, 2]) == 2
    assert median([5]) == 5


def test_even_count() -> None:
    assert math.isclose(median([1, 2, 3, 4]), 2.5)
    assert math.isclose(median([10, 2]), 6.0)


def test_unsorted_with_negatives() -> None:
    assert median([7, -3, 0, 12, -8]) == 0


def test_floats() -> None:
    assert math.isclose(median([0.5, 1.5, 0.25]), 0.5)


def test_list_not_modified() -> None:
    data = [3, 1, 2]
    median(data)
    assert data == [3, 1, 2]


def test_empty_raises() -> None:
    assert raises(ValueError, median, [])
