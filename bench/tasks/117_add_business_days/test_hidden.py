from collections.abc import Callable

from solution import add_business_days


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_within_a_week() -> None:
    assert add_business_days("2024-05-06", 1, []) == "2024-05-07"
    assert add_business_days("2024-05-06", 4, []) == "2024-05-10"


def test_weekends_are_skipped() -> None:
    assert add_business_days("2024-05-10", 1, []) == "2024-05-13"
    assert add_business_days("2024-05-08", 5, []) == "2024-05-15"
    assert add_business_days("2024-05-06", 10, []) == "2024-05-20"


def test_start_on_a_weekend() -> None:
    assert add_business_days("2024-05-11", 1, []) == "2024-05-13"
    assert add_business_days("2024-05-12", 2, []) == "2024-05-14"


def test_holidays_are_skipped() -> None:
    assert add_business_days("2024-12-23", 3, ["2024-12-26", "2024-12-25"]) == "2024-12-30"
    assert add_business_days("2024-05-10", 1, ["2024-05-13", "2024-05-14"]) == "2024-05-15"


def test_weekend_holidays_change_nothing() -> None:
    assert add_business_days("2024-05-10", 1, ["2024-05-11", "2024-05-12"]) == "2024-05-13"


def test_across_months_and_years() -> None:
    assert add_business_days("2024-02-28", 2, []) == "2024-03-01"
    assert add_business_days("2024-12-31", 3, ["2025-01-01"]) == "2025-01-06"


def test_days_below_one_raises() -> None:
    assert raises(ValueError, add_business_days, "2024-05-06", 0, [])
