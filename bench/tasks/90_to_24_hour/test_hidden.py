from collections.abc import Callable

from solution import to_24_hour


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_morning() -> None:
    assert to_24_hour("9:00 AM") == "09:00"
    assert to_24_hour("1:07 AM") == "01:07"
    assert to_24_hour("11:59 AM") == "11:59"


def test_afternoon_and_evening() -> None:
    assert to_24_hour("2:05 PM") == "14:05"
    assert to_24_hour("11:59 PM") == "23:59"


def test_midnight() -> None:
    assert to_24_hour("12:30 AM") == "00:30"
    assert to_24_hour("12:00 AM") == "00:00"


def test_noon() -> None:
    assert to_24_hour("12:00 PM") == "12:00"
    assert to_24_hour("12:45 PM") == "12:45"


def test_bad_hour_raises() -> None:
    assert raises(ValueError, to_24_hour, "13:00 PM")
    assert raises(ValueError, to_24_hour, "0:30 AM")


def test_bad_minutes_or_missing_parts_raise() -> None:
    assert raises(ValueError, to_24_hour, "5:60 AM")
    assert raises(ValueError, to_24_hour, "5:30")
    assert raises(ValueError, to_24_hour, "noon")
    assert raises(ValueError, to_24_hour, "")
