from solution import next_id


def test_one_above_the_highest() -> None:
    assert next_id([1, 2, 3]) == 4


def test_gaps_are_not_reused() -> None:
    assert next_id([1, 2, 5]) == 6
    assert next_id([7]) == 8


def test_unsorted() -> None:
    assert next_id([12, 3, 40, 8]) == 41


def test_repeated_ids() -> None:
    assert next_id([6, 6, 2]) == 7


def test_no_records() -> None:
    assert next_id([]) == 1
