from solution import units_shipped

DB = "shop.db"


def test_partly_shipped_lines() -> None:
    assert units_shipped(DB, "TEA-01") == 7


def test_unshipped_line_adds_nothing() -> None:
    assert units_shipped(DB, "FLT-01") == 5


def test_kettle() -> None:
    assert units_shipped(DB, "KTL-01") == 3


def test_fully_shipped_product() -> None:
    assert units_shipped(DB, "MUG-01") == 5


def test_unknown_code_gives_zero() -> None:
    assert units_shipped(DB, "XYZ-99") == 0


def test_returns_int() -> None:
    assert type(units_shipped(DB, "HNY-01")) is int
    assert units_shipped(DB, "HNY-01") == 2
