import math
from collections.abc import Callable

from solution import weekly_pay


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def pay(hours: list[float], rate: float) -> float:
    result = weekly_pay(hours, rate)
    assert isinstance(result, int | float)
    return result


def test_ordinary_week() -> None:
    assert math.isclose(pay([7.5, 7.5, 7.5, 7.5, 7.5, 0, 0], 16.0), 600.0)


def test_no_weekly_overtime() -> None:
    assert math.isclose(pay([8, 8, 8, 8, 8, 8, 0], 10), 480.0)


def test_daily_overtime() -> None:
    assert math.isclose(pay([12, 0, 0, 0, 0, 0, 0], 10), 140.0)
    assert math.isclose(pay([0, 0, 0, 0, 0, 9.5, 0], 20), 205.0)


def test_sunday_is_double() -> None:
    assert math.isclose(pay([0, 0, 0, 0, 0, 0, 10], 15), 300.0)


def test_a_mixed_week_is_rounded() -> None:
    assert math.isclose(pay([9, 8, 0, 10.25, 4, 0, 2], 13.33), 491.54)
    assert math.isclose(pay([0, 0, 0, 0, 0, 0, 0], 50), 0.0)


def test_bad_hours_raise() -> None:
    assert raises(ValueError, weekly_pay, [8, 8, 8, 8, 8, 0], 10)
    assert raises(ValueError, weekly_pay, [8, 8, 8, 8, 8, 0, 0, 0], 10)
    assert raises(ValueError, weekly_pay, [8, 8, -1, 8, 8, 0, 0], 10)
    assert raises(ValueError, weekly_pay, [8, 8, 8, 25, 8, 0, 0], 10)
