from solution import column_width


def test_widest_cell() -> None:
    rows = [["sku", "price"], ["A-1", "9.99"], ["B-200", "120.00"]]
    assert column_width(rows, 0) == 5
    assert column_width(rows, 1) == 6


def test_spaces_count() -> None:
    assert column_width([["  a"], ["b "]], 0) == 3


def test_short_rows_are_skipped() -> None:
    assert column_width([["a"], ["bb", "cccc"], []], 1) == 4
    assert column_width([["a", "b"], ["c"]], 1) == 1


def test_empty_table() -> None:
    assert column_width([], 0) == 0
    assert column_width([], 3) == 0


def test_column_no_row_reaches() -> None:
    assert column_width([["a", "b"], ["c"]], 2) == 0


def test_empty_cells() -> None:
    assert column_width([[""], [""]], 0) == 0
    assert column_width([["x", ""], ["y", "zz"]], 1) == 2
