from solution import low_stock


def test_below_threshold_listed() -> None:
    stock = {"bolts": 3, "nuts": 40, "washers": 1}
    assert low_stock(stock, 10) == ["bolts", "washers"]


def test_equal_to_threshold_is_enough() -> None:
    assert low_stock({"a": 5, "b": 4, "c": 6}, 5) == ["b"]


def test_sorted_by_name() -> None:
    assert low_stock({"zip": 0, "apple": 1, "Mango": 2}, 3) == ["Mango", "apple", "zip"]


def test_sold_out() -> None:
    assert low_stock({"pens": 0}, 1) == ["pens"]


def test_zero_threshold() -> None:
    assert low_stock({"pens": 0, "tape": 3}, 0) == []


def test_empty_stock() -> None:
    assert low_stock({}, 3) == []
