from collections.abc import Callable

from solution import parse_duration


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_single_units() -> None:
    assert parse_duration("45s") == 45
    assert parse_duration("3m") == 180
    assert parse_duration("2h") == 7200
    assert parse_duration("1d") == 86400


def test_combined_parts() -> None:
    assert parse_duration("1h30m") == 5400
    assert parse_duration("1d2h3m4s") == 93784
    assert parse_duration("0h90s") == 90


def test_spaces_order_and_case() -> None:
    assert parse_duration("2d 3s") == 172803
    assert parse_duration(" 30m 1h ") == 5400
    assert parse_duration("1H30M") == 5400


def test_repeated_unit_adds_up() -> None:
    assert parse_duration("10m 5m") == 900


def test_empty_or_blank_raises() -> None:
    assert raises(ValueError, parse_duration, "")
    assert raises(ValueError, parse_duration, "   ")


def test_malformed_parts_raise() -> None:
    assert raises(ValueError, parse_duration, "90")
    assert raises(ValueError, parse_duration, "1h30")
    assert raises(ValueError, parse_duration, "h")
    assert raises(ValueError, parse_duration, "5x")
    assert raises(ValueError, parse_duration, "1.5h")
