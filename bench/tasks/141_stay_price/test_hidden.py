from collections.abc import Callable

from solution import stay_price


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_weeknights() -> None:
    assert stay_price("2024-05-06", "2024-05-07", 9000) == 9000
    assert stay_price("2024-05-05", "2024-05-09", 9000) == 36000


def test_weekend_nights() -> None:
    assert stay_price("2024-05-10", "2024-05-11", 8000) == 10000
    assert stay_price("2024-05-11", "2024-05-12", 999) == 1248


def test_weekly_discount() -> None:
    assert stay_price("2024-05-06", "2024-05-12", 10000) == 65000
    assert stay_price("2024-05-06", "2024-05-13", 10000) == 67500
    assert stay_price("2024-05-06", "2024-05-20", 10000) == 135000


def test_across_months_and_a_leap_day() -> None:
    assert stay_price("2024-02-28", "2024-03-01", 5000) == 10000
    assert stay_price("2023-12-29", "2024-01-02", 4000) == 18000


def test_check_out_must_be_after_check_in() -> None:
    assert raises(ValueError, stay_price, "2024-05-06", "2024-05-06", 100)
    assert raises(ValueError, stay_price, "2024-05-07", "2024-05-06", 100)
