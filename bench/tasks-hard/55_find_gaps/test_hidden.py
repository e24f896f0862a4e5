from solution import find_gaps


def test_gaps_between_and_around() -> None:
    assert find_gaps([(2, 4), (6, 8)], 0, 10) == [(0, 2), (4, 6), (8, 10)]


def test_unsorted_touching_and_overlapping() -> None:
    assert find_gaps([(5, 7), (0, 3), (3, 5)], 1, 9) == [(7, 9)]
    assert find_gaps([(4, 9), (2, 6), (12, 13)], 0, 15) == [(0, 2), (9, 12), (13, 15)]


def test_busy_ranges_outside_the_window() -> None:
    assert find_gaps([(-5, 2), (8, 20)], 0, 10) == [(2, 8)]
    assert find_gaps([(20, 30), (-3, -1)], 0, 5) == [(0, 5)]
    assert find_gaps([(-1, 11)], 0, 10) == []


def test_empty_busy_ranges_are_ignored() -> None:
    assert find_gaps([(4, 4), (7, 5)], 0, 10) == [(0, 10)]
    assert find_gaps([], 3, 6) == [(3, 6)]


def test_window_fully_covered_at_edges() -> None:
    assert find_gaps([(0, 3), (7, 10)], 0, 10) == [(3, 7)]
    assert find_gaps([(0, 5), (5, 10)], 0, 10) == []


def test_empty_window() -> None:
    assert find_gaps([(1, 2)], 5, 5) == []
    assert find_gaps([], 9, 3) == []
