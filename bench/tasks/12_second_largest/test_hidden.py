from solution import second_largest


def test_sorted_input() -> None:
    assert second_largest([1, 2, 3, 4]) == 3


def test_unsorted_input() -> None:
    assert second_largest([4, 10, 3, 7]) == 7


def test_repeated_largest_counts_once() -> None:
    assert second_largest([5, 5, 3]) == 3
    assert second_largest([2, 9, 9, 9]) == 2


def test_negative_numbers() -> None:
    assert second_largest([-1, -5, -3]) == -3


def test_fewer_than_two_distinct_values() -> None:
    assert second_largest([7, 7]) is None
    assert second_largest([1]) is None
    assert second_largest([]) is None
