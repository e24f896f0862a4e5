from collections.abc import Callable

from solution import repeat_chars


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_examples() -> None:
    assert repeat_chars("abc", 2) == "aabbcc"
    assert repeat_chars("hi!", 3) == "hhhiii!!!"


def test_times_one_keeps_the_text() -> None:
    assert repeat_chars("same", 1) == "same"


def test_spaces_are_repeated_too() -> None:
    assert repeat_chars("a b", 2) == "aa  bb"


def test_times_zero_and_empty_text() -> None:
    assert repeat_chars("abc", 0) == ""
    assert repeat_chars("", 5) == ""


def test_negative_times_raises() -> None:
    assert raises(ValueError, repeat_chars, "abc", -1)
