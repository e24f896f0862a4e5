from collections.abc import Callable

from solution import page_items


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


LETTERS = ["a", "b", "c", "d", "e", "f", "g"]


def test_first_page() -> None:
    assert page_items(LETTERS, 1, 3) == ["a", "b", "c"]


def test_middle_page() -> None:
    assert page_items(LETTERS, 2, 3) == ["d", "e", "f"]


def test_last_page_partly_filled() -> None:
    assert page_items(LETTERS, 3, 3) == ["g"]


def test_past_the_end() -> None:
    assert page_items(LETTERS, 4, 3) == []
    assert page_items([], 1, 10) == []


def test_page_below_one_raises() -> None:
    assert raises(ValueError, page_items, LETTERS, 0, 3)
    assert raises(ValueError, page_items, LETTERS, -1, 3)
