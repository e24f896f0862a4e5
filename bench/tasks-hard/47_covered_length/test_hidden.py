from solution import covered_length


def test_disjoint_ranges() -> None:
    assert covered_length([(0, 3)]) == 3
    assert covered_length([(0, 2), (5, 9)]) == 6


def test_overlapping_and_touching() -> None:
    assert covered_length([(1, 4), (3, 6)]) == 5
    assert covered_length([(0, 5), (5, 10)]) == 10


def test_nested_and_unsorted() -> None:
    assert covered_length([(2, 3), (0, 10), (4, 8)]) == 10
    assert covered_length([(20, 25), (1, 2), (22, 30), (0, 1)]) == 12


def test_empty_and_reversed_ranges_cover_nothing() -> None:
    assert covered_length([(5, 5)]) == 0
    assert covered_length([(7, 3), (1, 2)]) == 1


def test_negative_numbers() -> None:
    assert covered_length([(-5, -1), (-2, 2)]) == 7


def test_empty_list() -> None:
    assert covered_length([]) == 0
