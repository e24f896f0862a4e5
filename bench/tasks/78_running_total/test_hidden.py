from solution import running_total


def test_example() -> None:
    assert running_total([1, 2, 3]) == [1, 3, 6]


def test_negative_numbers() -> None:
    assert running_total([5, -2, -3, 4]) == [5, 3, 0, 4]


def test_single_element() -> None:
    assert running_total([9]) == [9]


def test_zeros() -> None:
    assert running_total([0, 0, 1, 0]) == [0, 0, 1, 1]


def test_empty() -> None:
    assert running_total([]) == []


def test_input_not_modified() -> None:
    data = [1, 1, 1]
    assert running_total(data) == [1, 2, 3]
    assert data == [1, 1, 1]
