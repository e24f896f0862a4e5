from solution import spiral_order


def test_two_by_two() -> None:
    assert spiral_order([[1, 2], [3, 4]]) == [1, 2, 4, 3]


def test_three_by_three() -> None:
    assert spiral_order([[1, 2, 3], [4, 5, 6], [7, 8, 9]]) == [1, 2, 3, 6, 9, 8, 7, 4, 5]


def test_wide_grid() -> None:
    assert spiral_order([[1, 2, 3, 4], [5, 6, 7, 8]]) == [1, 2, 3, 4, 8, 7, 6, 5]


def test_tall_grid() -> None:
    assert spiral_order([[1, 2], [3, 4], [5, 6]]) == [1, 2, 4, 6, 5, 3]


def test_single_row_and_column() -> None:
    assert spiral_order([[1, 2, 3]]) == [1, 2, 3]
    assert spiral_order([[1], [2], [3]]) == [1, 2, 3]


def test_empty_grids() -> None:
    assert spiral_order([]) == []
    assert spiral_order([[]]) == []
