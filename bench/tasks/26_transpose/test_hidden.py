from solution import transpose


def test_square() -> None:
    assert transpose([[1, 2], [3, 4]]) == [[1, 3], [2, 4]]


def test_rectangular() -> None:
    assert transpose([[1, 2, 3], [4, 5, 6]]) == [[1, 4], [2, 5], [3, 6]]


def test_single_row_and_column() -> None:
    assert transpose([[1, 2, 3]]) == [[1], [2], [3]]
    assert transpose([[1], [2], [3]]) == [[1, 2, 3]]


def test_empty() -> None:
    assert transpose([]) == []


def test_input_not_modified() -> None:
    matrix = [["a", "b"], ["c", "d"]]
    assert transpose(matrix) == [["a", "c"], ["b", "d"]]
    assert matrix == [["a", "b"], ["c", "d"]]
