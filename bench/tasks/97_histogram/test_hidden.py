from collections.abc import Callable

from solution import histogram


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_single_label() -> None:
    assert histogram({"a": 3}) == "a |###"


def test_labels_are_sorted_and_padded() -> None:
    assert histogram({"pear": 3, "fig": 1}) == "fig  |#\npear |###"
    assert histogram({"cc": 2, "a": 1, "bbb": 3}) == "a   |#\nbbb |###\ncc  |##"


def test_zero_count_ends_at_the_bar() -> None:
    assert histogram({"b": 0, "a": 2}) == "a |##\nb |"


def test_no_trailing_newline() -> None:
    assert not histogram({"x": 1, "y": 2}).endswith("\n")


def test_empty_dict() -> None:
    assert histogram({}) == ""


def test_negative_count_raises() -> None:
    assert raises(ValueError, histogram, {"a": 1, "b": -1})
