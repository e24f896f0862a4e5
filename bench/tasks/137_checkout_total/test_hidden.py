from collections.abc import Callable

from solution import checkout_total


def raises(error: type[Exception], function: Callable[..., object], *args: object) -> bool:
    """Whether calling function(*args) raises error."""
    try:
        function(*args)
    except error:
        return True
    return False


def test_small_cart_pays_shipping() -> None:
    assert checkout_total([("cup", 700, 2)], "") == 1899
    assert checkout_total([("cup", 700, 2), ("mat", 1599, 1)], "") == 2999 + 499


def test_free_shipping_from_3000() -> None:
    assert checkout_total([("cup", 1000, 2), ("mat", 1000, 1)], "") == 3000


def test_bulk_discount_per_line() -> None:
    assert checkout_total([("nail", 5, 3)], "") == 14 + 499
    assert checkout_total([("tile", 1000, 4), ("glue", 999, 2)], "") == 3600 + 1998


def test_save15() -> None:
    assert checkout_total([("tv", 10001, 1)], "SAVE15") == 10001 - 1500
    assert checkout_total([("mug", 3000, 1)], "save15") == 2550 + 499


def test_flat500() -> None:
    assert checkout_total([("bag", 2000, 1)], "FLAT500") == 1500 + 499
    assert checkout_total([("bag", 1999, 1)], "FLAT500") == 1999 + 499
    assert checkout_total([("coat", 9000, 1)], "  Flat500") == 8500


def test_empty_cart() -> None:
    assert checkout_total([], "") == 0
    assert checkout_total([], "  ") == 0
    assert checkout_total([], "FLAT500") == 0


def test_unknown_coupon_raises() -> None:
    assert raises(ValueError, checkout_total, [("a", 100, 1)], "SAVE20")
    assert raises(ValueError, checkout_total, [], "FREE")
