from collections.abc import Callable

from solution import pack_shipments


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_everything_in_one_box() -> None:
    assert pack_shipments([("a", 2), ("b", 3), ("c", 5)], 10) == [["a", "b", "c"]]


def test_exact_fill() -> None:
    assert pack_shipments([("a", 6), ("b", 4), ("c", 1)], 10) == [["a", "b"], ["c"]]


def test_later_items_go_back_to_earlier_boxes() -> None:
    items = [("big", 7), ("mid", 5), ("mid2", 5), ("tiny", 3), ("dot", 1)]
    assert pack_shipments(items, 10) == [["big", "tiny"], ["mid", "mid2"], ["dot"]]


def test_first_fit_not_best_fit() -> None:
    items = [("a", 4), ("b", 6), ("c", 3)]
    assert pack_shipments(items, 8) == [["a", "c"], ["b"]]


def test_no_items() -> None:
    assert pack_shipments([], 1) == []


def test_bad_weights_raise() -> None:
    assert raises(ValueError, pack_shipments, [("a", 1), ("anvil", 11)], 10)
    assert raises(ValueError, pack_shipments, [("ghost", 0)], 10)
