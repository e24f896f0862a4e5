import math
from collections.abc import Callable

from solution import moving_average


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def close(actual: list[float], expected: list[float]) -> bool:
    """Whether two lists of floats are equally long and equal up to rounding."""
    return len(actual) == len(expected) and all(
        math.isclose(a, e) for a, e in zip(actual, expected, strict=True)
    )


def test_window_of_two() -> None:
    assert close(moving_average([1, 2, 3, 4], 2), [1.5, 2.5, 3.5])


def test_window_of_three() -> None:
    assert close(moving_average([3, 6, 9, 0, 3], 3), [6.0, 5.0, 4.0])
    assert close(moving_average([0.5, 1.0, 1.5], 3), [1.0])


def test_window_of_one_keeps_the_values() -> None:
    assert close(moving_average([4, -2, 7], 1), [4.0, -2.0, 7.0])


def test_window_larger_than_values() -> None:
    assert moving_average([5, 1], 3) == []
    assert moving_average([], 2) == []


def test_small_window_raises() -> None:
    assert raises(ValueError, moving_average, [1, 2, 3], 0)
    assert raises(ValueError, moving_average, [1, 2, 3], -1)
