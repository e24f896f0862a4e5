import math

from solution import group_totals


def test_sums_per_group() -> None:
    sales = [
        {"region": "north", "amount": 10},
        {"region": "south", "amount": 4},
        {"region": "north", "amount": 5},
        {"region": "south", "amount": 1},
    ]
    assert group_totals(sales, "region", "amount") == {"north": 15, "south": 5}


def test_keys_in_first_seen_order() -> None:
    rows = [{"k": "z", "v": 1}, {"k": "a", "v": 2}, {"k": "m", "v": 3}, {"k": "a", "v": 4}]
    result = group_totals(rows, "k", "v")
    assert list(result) == ["z", "a", "m"]
    assert result == {"z": 1, "a": 6, "m": 3}


def test_missing_key_is_skipped() -> None:
    rows = [{"k": 1, "v": 2}, {"v": 100}, {"other": 1, "v": 7}]
    assert group_totals(rows, "k", "v") == {1: 2}


def test_missing_field_adds_zero() -> None:
    rows = [{"k": "a"}, {"k": "b", "v": 3}, {"k": "a"}]
    assert group_totals(rows, "k", "v") == {"a": 0, "b": 3}


def test_float_and_negative_values() -> None:
    rows = [{"k": "x", "v": 1.5}, {"k": "x", "v": -0.25}, {"k": "y", "v": -2}]
    result = group_totals(rows, "k", "v")
    assert set(result) == {"x", "y"}
    assert math.isclose(result["x"], 1.25)
    assert result["y"] == -2


def test_empty_list() -> None:
    assert group_totals([], "k", "v") == {}
