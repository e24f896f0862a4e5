from solution import pairs_with_sum


def test_examples() -> None:
    assert pairs_with_sum([1, 5, 3, 3, 2, 4], 6) == [(1, 5), (2, 4), (3, 3)]
    assert pairs_with_sum([3, 1], 6) == []


def test_value_does_not_pair_with_itself_once() -> None:
    assert pairs_with_sum([3, 1, 2], 6) == []
    assert pairs_with_sum([4, 4], 8) == [(4, 4)]


def test_duplicate_pairs_appear_once() -> None:
    assert pairs_with_sum([1, 1, 2, 2, 2], 3) == [(1, 2)]


def test_negative_numbers_and_zero() -> None:
    assert pairs_with_sum([-2, 0, 2, 5, -5], 0) == [(-5, 5), (-2, 2)]


def test_empty_list() -> None:
    assert pairs_with_sum([], 4) == []
