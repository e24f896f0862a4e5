from solution import is_cancelled

DB = "shop.db"


def test_cancelled_order() -> None:
    assert is_cancelled(DB, 1003) is True


def test_other_cancelled_orders() -> None:
    assert is_cancelled(DB, 1007) is True
    assert is_cancelled(DB, 1009) is True


def test_shipped_order() -> None:
    assert is_cancelled(DB, 1001) is False


def test_pending_order() -> None:
    assert is_cancelled(DB, 1004) is False


def test_order_being_picked() -> None:
    assert is_cancelled(DB, 1006) is False
