from solution import merge_intervals


def test_examples() -> None:
    assert merge_intervals([(6, 8), (1, 3), (2, 4)]) == [(1, 4), (6, 8)]
    assert merge_intervals([(1, 3), (3, 5)]) == [(1, 5)]


def test_adjacent_but_apart() -> None:
    assert merge_intervals([(3, 4), (1, 2)]) == [(1, 2), (3, 4)]


def test_contained_interval() -> None:
    assert merge_intervals([(1, 10), (2, 3), (4, 5)]) == [(1, 10)]


def test_chain_of_overlaps() -> None:
    assert merge_intervals([(5, 7), (1, 2), (2, 5), (9, 9)]) == [(1, 7), (9, 9)]


def test_empty_and_single() -> None:
    assert merge_intervals([]) == []
    assert merge_intervals([(4, 4)]) == [(4, 4)]
