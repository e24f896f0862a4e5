from solution import rank_scores


def test_distinct_scores() -> None:
    assert rank_scores([10, 30, 20]) == [3, 1, 2]
    assert rank_scores([42]) == [1]


def test_ties_share_a_rank_and_skip() -> None:
    assert rank_scores([50, 80, 80, 70]) == [4, 1, 1, 3]
    assert rank_scores([5, 7, 5, 9, 5]) == [3, 2, 3, 1, 3]


def test_all_equal() -> None:
    assert rank_scores([3, 3, 3]) == [1, 1, 1]


def test_negative_scores() -> None:
    assert rank_scores([-1, 0, -5, 0]) == [3, 1, 4, 1]


def test_input_not_modified() -> None:
    scores = [2, 9, 4]
    assert rank_scores(scores) == [3, 1, 2]
    assert scores == [2, 9, 4]


def test_empty_list() -> None:
    assert rank_scores([]) == []
