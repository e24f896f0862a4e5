from collections.abc import Callable

from solution import add_check_letter


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_short_codes() -> None:
    assert add_check_letter("123") == "123O"
    assert add_check_letter("0") == "0A"
    assert add_check_letter("1") == "1B"


def test_positions_matter() -> None:
    assert add_check_letter("21") == "21E"
    assert add_check_letter("12") == "12F"


def test_total_wraps_modulo_26() -> None:
    assert add_check_letter("99999") == "99999F"
    assert add_check_letter("2024") == "2024Y"
    assert add_check_letter("00000000000000000000000000") == "00000000000000000000000000A"


def test_leading_zeros_are_kept() -> None:
    assert add_check_letter("0071") == "0071Z"


def test_empty_code_raises() -> None:
    assert raises(ValueError, add_check_letter, "")


def test_non_digits_raise() -> None:
    assert raises(ValueError, add_check_letter, "12a")
    assert raises(ValueError, add_check_letter, " 12")
    assert raises(ValueError, add_check_letter, "1-2")
    assert raises(ValueError, add_check_letter, "12\u00b2")
