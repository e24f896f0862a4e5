from collections.abc import Callable

from solution import expand_ranges


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_single_numbers_and_ranges() -> None:
    assert expand_ranges("4") == [4]
    assert expand_ranges("1-3") == [1, 2, 3]
    assert expand_ranges("1-3,7") == [1, 2, 3, 7]


def test_reversed_range_and_spaces() -> None:
    assert expand_ranges("1-3, 7, 10-8") == [1, 2, 3, 7, 8, 9, 10]
    assert expand_ranges("  5-5 ,0") == [0, 5]


def test_sorted_and_distinct() -> None:
    assert expand_ranges("9,2-4,3,1-2") == [1, 2, 3, 4, 9]


def test_empty_pieces_are_skipped() -> None:
    assert expand_ranges("") == []
    assert expand_ranges(" , ") == []
    assert expand_ranges("2,,3,") == [2, 3]


def test_invalid_pieces_raise() -> None:
    assert raises(ValueError, expand_ranges, "1,x")
    assert raises(ValueError, expand_ranges, "1-")
    assert raises(ValueError, expand_ranges, "1-2-3")
    assert raises(ValueError, expand_ranges, "-4")
