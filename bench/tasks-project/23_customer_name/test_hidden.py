from solution import customer_name

DB = "shop.db"


def test_example_order() -> None:
    assert customer_name(DB, 1005) == "Emil Sarr"


def test_first_order() -> None:
    assert customer_name(DB, 1001) == "Ada Lovelace"


def test_kettle_order() -> None:
    assert customer_name(DB, 1013) == "Dana Whit"


def test_pending_order() -> None:
    assert customer_name(DB, 1008) == "Gus Moreno"


def test_cancelled_order_still_has_a_customer() -> None:
    assert customer_name(DB, 1009) == "Brook Harlan"
