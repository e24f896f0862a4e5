"""Hidden tests for is_too_hot."""

from solution import is_too_hot


def test_office() -> None:
    """The office sensor."""
    assert is_too_hot("S-103", 31.0) is True
    assert is_too_hot("S-103", 29.0) is False


def test_server_room() -> None:
    """The server room has a lower limit than the office."""
    assert is_too_hot("S-101", 28.0) is True
    assert is_too_hot("S-101", 26.0) is False


def test_limit_itself_is_not_too_hot() -> None:
    """A reading equal to the limit is still fine."""
    assert is_too_hot("S-101", 27.5) is False


def test_cold_store() -> None:
    """The cold store is too warm above its (negative) limit."""
    assert is_too_hot("S-102", -17.0) is True
    assert is_too_hot("S-102", -19.5) is False


def test_lab_fridge_and_greenhouse() -> None:
    """A fridge and a greenhouse."""
    assert is_too_hot("S-105", 8.5) is True
    assert is_too_hot("S-104", 34.0) is False
