from collections.abc import Callable

from frontdesk.errors import InvalidBookingInput
from solution import parse_nights


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_example_with_spaces() -> None:
    assert parse_nights(" 3 ") == 3


def test_plain_number() -> None:
    assert parse_nights("14") == 14


def test_one_night() -> None:
    assert parse_nights("1") == 1


def test_zero_nights_is_refused() -> None:
    assert raises(InvalidBookingInput, parse_nights, "0")


def test_words_are_refused() -> None:
    assert raises(InvalidBookingInput, parse_nights, "two")
    assert raises(InvalidBookingInput, parse_nights, "2.5")
