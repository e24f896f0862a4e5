from collections.abc import Callable

from solution import nearest_value


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_closest_value() -> None:
    assert nearest_value([1, 5, 9], 6) == 5
    assert nearest_value([10, 20, 30], 29) == 30


def test_exact_match() -> None:
    assert nearest_value([3, 7, 11], 7) == 7


def test_tie_goes_to_the_smaller_value() -> None:
    assert nearest_value([8, 4], 6) == 4
    assert nearest_value([4, 8], 6) == 4
    assert nearest_value([-1, 1], 0) == -1


def test_target_outside_the_values() -> None:
    assert nearest_value([2, 5, 3], 100) == 5
    assert nearest_value([2, 5, 3], -100) == 2


def test_floats() -> None:
    assert nearest_value([0.5, 1.25, 2.0], 1.0) == 1.25


def test_empty_list_raises() -> None:
    assert raises(ValueError, nearest_value, [], 3)
