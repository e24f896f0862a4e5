from solution import mode


def test_clear_winner() -> None:
    assert mode([1, 2, 2, 3]) == 2
    assert mode([4, 4, 4, 1, 1]) == 4


def test_single_item() -> None:
    assert mode([5]) == 5


def test_tie_returns_smallest() -> None:
    assert mode([3, 1, 3, 1, 2]) == 1
    assert mode([9, 8, 7]) == 7


def test_negative_numbers() -> None:
    assert mode([2, -1, 2, -1]) == -1


def test_empty_returns_none() -> None:
    assert mode([]) is None
