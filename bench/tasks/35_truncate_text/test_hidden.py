from collections.abc import Callable

from solution import truncate_text


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_fitting_text_is_unchanged() -> None:
    assert truncate_text("short", 10) == "short"
    assert truncate_text("exactly", 7) == "exactly"
    assert truncate_text("", 5) == ""


def test_long_text_is_cut_to_width() -> None:
    assert truncate_text("hello world", 8) == "hello..."
    assert truncate_text("abcdefghij", 6) == "abc..."


def test_trailing_spaces_before_dots_are_removed() -> None:
    assert truncate_text("hello world", 9) == "hello..."
    assert truncate_text("a    b", 5) == "a..."


def test_width_three_keeps_only_dots() -> None:
    assert truncate_text("abcd", 3) == "..."


def test_width_below_three_raises() -> None:
    assert raises(ValueError, truncate_text, "a long sentence", 2)
    assert raises(ValueError, truncate_text, "a long sentence", 0)
