from collections.abc import Callable

from solution import page_count


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_partly_filled_last_page() -> None:
    assert page_count(21, 10) == 3
    assert page_count(1, 50) == 1


def test_exact_fit() -> None:
    assert page_count(40, 20) == 2
    assert page_count(7, 1) == 7


def test_no_items() -> None:
    assert page_count(0, 10) == 0


def test_bad_per_page_raises() -> None:
    assert raises(ValueError, page_count, 5, 0)
    assert raises(ValueError, page_count, 5, -3)


def test_negative_items_raise() -> None:
    assert raises(ValueError, page_count, -1, 10)
