from solution import awaiting_shipment

DB = "shop.db"


def test_exact_orders() -> None:
    assert awaiting_shipment(DB) == [1004, 1006, 1008, 1011]


def test_cancelled_orders_are_left_out() -> None:
    result = awaiting_shipment(DB)
    assert 1003 not in result
    assert 1007 not in result
    assert 1009 not in result


def test_shipped_orders_are_left_out() -> None:
    result = awaiting_shipment(DB)
    assert not {1001, 1002, 1005, 1010, 1012, 1013} & set(result)


def test_order_being_picked_counts() -> None:
    assert 1006 in awaiting_shipment(DB)


def test_list_of_ints_sorted() -> None:
    result = awaiting_shipment(DB)
    assert isinstance(result, list)
    assert all(type(n) is int for n in result)
    assert result == sorted(result)
