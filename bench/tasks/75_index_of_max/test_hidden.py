from solution import index_of_max


def test_examples() -> None:
    assert index_of_max([3, 9, 2]) == 1
    assert index_of_max([5, 1, 5]) == 0


def test_largest_at_either_end() -> None:
    assert index_of_max([10, 1, 2]) == 0
    assert index_of_max([1, 2, 30]) == 2


def test_negative_numbers_and_floats() -> None:
    assert index_of_max([-8, -3, -5]) == 1
    assert index_of_max([0.5, 2.5, 2.25]) == 1


def test_single_element() -> None:
    assert index_of_max([7]) == 0


def test_empty_returns_none() -> None:
    assert index_of_max([]) is None
