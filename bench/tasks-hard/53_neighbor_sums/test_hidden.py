from solution import neighbor_sums


def test_single_row_and_column() -> None:
    assert neighbor_sums([[1, 2, 3]]) == [[2, 4, 2]]
    assert neighbor_sums([[1], [2], [3]]) == [[2], [4], [2]]


def test_three_by_three() -> None:
    grid = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
    assert neighbor_sums(grid) == [[6, 9, 8], [13, 20, 17], [12, 21, 14]]


def test_rectangular_with_negatives() -> None:
    grid = [[0, -1, 2, 0], [5, 0, 0, -3]]
    assert neighbor_sums(grid) == [[4, 2, -1, -1], [0, 4, -1, 0]]


def test_single_cell_and_empty() -> None:
    assert neighbor_sums([[7]]) == [[0]]
    assert neighbor_sums([]) == []


def test_input_not_modified() -> None:
    grid = [[1, 2], [3, 4]]
    result = neighbor_sums(grid)
    assert result == [[5, 5], [5, 5]]
    assert grid == [[1, 2], [3, 4]]
    assert result is not grid
