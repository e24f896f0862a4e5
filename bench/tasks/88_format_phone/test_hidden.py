from collections.abc import Callable

from solution import format_phone


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_plain_digits() -> None:
    assert format_phone("5551234567") == "(555) 123-4567"
    assert format_phone("0000000000") == "(000) 000-0000"


def test_separators_are_ignored() -> None:
    assert format_phone("555.123.4567") == "(555) 123-4567"
    assert format_phone("(555) 123 4567") == "(555) 123-4567"
    assert format_phone("555-123-4567") == "(555) 123-4567"


def test_already_formatted() -> None:
    assert format_phone("(212) 555-0199") == "(212) 555-0199"


def test_spaces_and_plus() -> None:
    assert format_phone(" +987 654 32 10 ") == "(987) 654-3210"


def test_too_few_digits_raises() -> None:
    assert raises(ValueError, format_phone, "555-1234")
    assert raises(ValueError, format_phone, "")


def test_too_many_digits_raises() -> None:
    assert raises(ValueError, format_phone, "1-555-123-4567")
