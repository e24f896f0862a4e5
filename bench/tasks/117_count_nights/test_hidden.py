from collections.abc import Callable

from solution import count_nights


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_one_night() -> None:
    assert count_nights("2024-07-14", "2024-07-15") == 1


def test_within_a_month() -> None:
    assert count_nights("2024-07-01", "2024-07-08") == 7


def test_across_months_and_years() -> None:
    assert count_nights("2024-01-30", "2024-02-02") == 3
    assert count_nights("2023-12-30", "2024-01-01") == 2


def test_leap_and_common_years() -> None:
    assert count_nights("2024-02-28", "2024-03-01") == 2
    assert count_nights("2023-02-28", "2023-03-01") == 1
    assert count_nights("2024-01-01", "2025-01-01") == 366


def test_same_day_raises() -> None:
    assert raises(ValueError, count_nights, "2024-05-02", "2024-05-02")


def test_check_out_before_check_in_raises() -> None:
    assert raises(ValueError, count_nights, "2024-05-10", "2024-05-02")
