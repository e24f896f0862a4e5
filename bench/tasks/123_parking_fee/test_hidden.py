from collections.abc import Callable

from solution import parking_fee


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_free_half_hour() -> None:
    assert parking_fee(0) == 0
    assert parking_fee(30) == 0


def test_started_hours() -> None:
    assert parking_fee(31) == 250
    assert parking_fee(60) == 250
    assert parking_fee(120) == 500
    assert parking_fee(121) == 750


def test_daily_cap() -> None:
    assert parking_fee(420) == 1750
    assert parking_fee(421) == 1800
    assert parking_fee(1439) == 1800


def test_whole_days() -> None:
    assert parking_fee(1440) == 1800
    assert parking_fee(2880) == 3600


def test_days_and_a_rest() -> None:
    assert parking_fee(1441) == 2050
    assert parking_fee(1440 + 30) == 2050
    assert parking_fee(2 * 1440 + 90) == 4100
    assert parking_fee(1440 + 1000) == 3600


def test_negative_raises() -> None:
    assert raises(ValueError, parking_fee, -1)
