import math

from solution import average_rating


def close(value: object, expected: float) -> bool:
    return isinstance(value, int | float) and math.isclose(value, expected, abs_tol=1e-9)


def test_average() -> None:
    assert close(average_rating([3, 4]), 3.5)
    assert close(average_rating([5, 5, 5]), 5.0)


def test_rounded_to_one_decimal() -> None:
    assert close(average_rating([1, 1, 2]), 1.3)
    assert close(average_rating([5, 4, 4]), 4.3)


def test_zeros_are_left_out() -> None:
    assert close(average_rating([2, 0, 0, 5]), 3.5)
    assert close(average_rating([0, 1]), 1.0)


def test_no_ratings() -> None:
    assert close(average_rating([]), 0.0)
    assert close(average_rating([0, 0, 0]), 0.0)


def test_one_rating() -> None:
    assert close(average_rating([4]), 4.0)
