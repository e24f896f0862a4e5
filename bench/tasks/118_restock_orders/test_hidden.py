from collections.abc import Callable

from solution import restock_orders


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_rounds_up_to_whole_batches() -> None:
    assert restock_orders({"a": 0}, {"a": 7}, 5) == {"a": 10}
    assert restock_orders({"a": 2}, {"a": 7}, 5) == {"a": 5}
    assert restock_orders({"a": 1}, {"a": 7}, 1) == {"a": 6}


def test_at_or_above_minimum_is_not_ordered() -> None:
    assert restock_orders({"a": 7, "b": 9}, {"a": 7, "b": 8}, 4) == {}


def test_missing_stock_counts_as_zero() -> None:
    assert restock_orders({}, {"tape": 24, "glue": 0}, 10) == {"tape": 30}


def test_negative_stock() -> None:
    assert restock_orders({"x": -10}, {"x": 5}, 6) == {"x": 18}


def test_products_without_a_minimum_are_ignored() -> None:
    assert restock_orders({"a": 0, "b": 0}, {"b": 1}, 2) == {"b": 2}


def test_result_is_in_alphabetical_order() -> None:
    orders = restock_orders({}, {"pear": 1, "apple": 1, "fig": 1}, 3)
    assert orders == {"apple": 3, "fig": 3, "pear": 3}
    assert list(orders) == ["apple", "fig", "pear"]


def test_batch_below_one_raises() -> None:
    assert raises(ValueError, restock_orders, {}, {"a": 1}, 0)
