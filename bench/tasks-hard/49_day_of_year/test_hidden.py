from collections.abc import Callable

from solution import day_of_year


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_start_of_year_and_months() -> None:
    assert day_of_year(20230101) == 1
    assert day_of_year(20230201) == 32
    assert day_of_year(20230815) == 227


def test_end_of_year() -> None:
    assert day_of_year(20231231) == 365
    assert day_of_year(20241231) == 366


def test_leap_years() -> None:
    assert day_of_year(20240301) == 61
    assert day_of_year(20000229) == 60
    assert day_of_year(20000301) == 61


def test_century_years_that_are_not_leap() -> None:
    assert day_of_year(19000301) == 60
    assert day_of_year(21000301) == 60


def test_invalid_month_raises() -> None:
    assert raises(ValueError, day_of_year, 20231301)
    assert raises(ValueError, day_of_year, 20230015)


def test_invalid_day_raises() -> None:
    assert raises(ValueError, day_of_year, 20230229)
    assert raises(ValueError, day_of_year, 19000229)
    assert raises(ValueError, day_of_year, 20230431)
    assert raises(ValueError, day_of_year, 20230500)
