from solution import customer_revenue

DB = "shop.db"


def test_cancelled_order_is_left_out() -> None:
    assert customer_revenue(DB, "Ada Lovelace") == 8500


def test_another_customer_with_a_cancelled_order() -> None:
    assert customer_revenue(DB, "Brook Harlan") == 4590


def test_pending_orders_still_count() -> None:
    assert customer_revenue(DB, "Emil Sarr") == 4290


def test_only_cancelled_orders_gives_zero() -> None:
    assert customer_revenue(DB, "Cyrus Obi") == 0


def test_unknown_name_gives_zero() -> None:
    assert customer_revenue(DB, "Nobody Here") == 0


def test_returns_int() -> None:
    assert type(customer_revenue(DB, "Dana Whit")) is int
    assert customer_revenue(DB, "Dana Whit") == 8620
