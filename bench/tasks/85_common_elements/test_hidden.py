from solution import common_elements


def test_example() -> None:
    assert common_elements([3, 1, 2, 3], [3, 4, 1]) == [3, 1]


def test_order_of_first_list() -> None:
    assert common_elements([5, 4, 3, 2, 1], [1, 2, 3]) == [3, 2, 1]


def test_each_value_once() -> None:
    assert common_elements(["x", "x", "y", "x"], ["x", "x"]) == ["x"]


def test_nothing_shared() -> None:
    assert common_elements(["a", "b"], ["c"]) == []


def test_empty_lists() -> None:
    assert common_elements([], [1, 2]) == []
    assert common_elements([1, 2], []) == []


def test_inputs_not_modified() -> None:
    first, second = [1, 2, 2, 3], [2, 3]
    assert common_elements(first, second) == [2, 3]
    assert first == [1, 2, 2, 3]
    assert second == [2, 3]
