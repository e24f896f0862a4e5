from collections.abc import Callable

from solution import parse_bool


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_true_words() -> None:
    for text in ["true", "yes", "on", "1"]:
        assert parse_bool(text) is True


def test_false_words() -> None:
    for text in ["false", "no", "off", "0"]:
        assert parse_bool(text) is False


def test_case_does_not_matter() -> None:
    assert parse_bool("TRUE") is True
    assert parse_bool("Yes") is True
    assert parse_bool("oFF") is False


def test_surrounding_whitespace_is_ignored() -> None:
    assert parse_bool(" Yes ") is True
    assert parse_bool("\tno\n") is False


def test_other_strings_raise() -> None:
    for text in ["maybe", "2", "y", "truee", "yes please"]:
        assert raises(ValueError, parse_bool, text)


def test_empty_string_raises() -> None:
    assert raises(ValueError, parse_bool, "")
    assert raises(ValueError, parse_bool, "   ")
