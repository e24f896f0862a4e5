from collections.abc import Callable

from solution import humanize_duration


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_seconds_only() -> None:
    assert humanize_duration(0) == "0s"
    assert humanize_duration(1) == "1s"
    assert humanize_duration(59) == "59s"


def test_minutes() -> None:
    assert humanize_duration(60) == "1m"
    assert humanize_duration(61) == "1m 1s"
    assert humanize_duration(3599) == "59m 59s"


def test_hours() -> None:
    assert humanize_duration(3600) == "1h"
    assert humanize_duration(7199) == "1h 59m"
    assert humanize_duration(3601) == "1h"


def test_days() -> None:
    assert humanize_duration(86400) == "1d"
    assert humanize_duration(2 * 86400 + 3599) == "2d"
    assert humanize_duration(3 * 86400 + 4 * 3600 + 5) == "3d 4h"


def test_many_days() -> None:
    assert humanize_duration(400 * 86400 + 23 * 3600) == "400d 23h"


def test_negative_raises() -> None:
    assert raises(ValueError, humanize_duration, -5)
