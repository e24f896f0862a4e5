from collections.abc import Callable

from solution import order_total


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_sum_of_line_costs() -> None:
    assert order_total([(199, 3), (2500, 1), (10, 10)]) == 597 + 2500 + 100


def test_one_line() -> None:
    assert order_total([(1234, 1)]) == 1234


def test_zero_quantity_and_free_items() -> None:
    assert order_total([(999, 0), (0, 5), (100, 2)]) == 200


def test_empty_order() -> None:
    assert order_total([]) == 0


def test_negative_quantity_raises() -> None:
    assert raises(ValueError, order_total, [(500, -1)])
    assert raises(ValueError, order_total, [(300, 1), (500, -2)])


def test_negative_price_raises() -> None:
    assert raises(ValueError, order_total, [(-100, 1)])
