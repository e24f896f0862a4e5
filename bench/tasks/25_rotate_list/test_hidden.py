from solution import rotate_list


def test_rotate_right() -> None:
    assert rotate_list([1, 2, 3, 4], 1) == [4, 1, 2, 3]
    assert rotate_list([1, 2, 3, 4, 5], 2) == [4, 5, 1, 2, 3]


def test_zero_and_full_turn() -> None:
    assert rotate_list([1, 2, 3], 0) == [1, 2, 3]
    assert rotate_list([1, 2, 3], 3) == [1, 2, 3]


def test_k_larger_than_length() -> None:
    assert rotate_list([1, 2, 3], 4) == [3, 1, 2]


def test_negative_k_rotates_left() -> None:
    assert rotate_list([1, 2, 3, 4], -1) == [2, 3, 4, 1]


def test_empty() -> None:
    assert rotate_list([], 3) == []


def test_input_not_modified() -> None:
    data = ["a", "b", "c"]
    assert rotate_list(data, 1) == ["c", "a", "b"]
    assert data == ["a", "b", "c"]
