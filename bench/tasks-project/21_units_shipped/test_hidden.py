from solution import units_shipped

DB = "shop.db"


def test_tea() -> None:
    assert units_shipped(DB, "TEA-01") == 7


def test_partly_shipped_filters() -> None:
    assert units_shipped(DB, "FLT-01") == 5


def test_kettle() -> None:
    assert units_shipped(DB, "KTL-01") == 3


def test_mugs() -> None:
    assert units_shipped(DB, "MUG-01") == 5


def test_honey_is_int() -> None:
    assert units_shipped(DB, "HNY-01") == 2
    assert type(units_shipped(DB, "HNY-01")) is int
