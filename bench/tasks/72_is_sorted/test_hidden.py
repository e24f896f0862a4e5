from solution import is_sorted


def test_ascending() -> None:
    assert is_sorted([1, 2, 3, 10]) is True
    assert is_sorted([-5, -1, 0, 4.5]) is True


def test_equal_neighbours_allowed() -> None:
    assert is_sorted([1, 1, 2, 2, 2, 3]) is True
    assert is_sorted([7, 7, 7]) is True


def test_not_sorted() -> None:
    assert is_sorted([1, 3, 2]) is False
    assert is_sorted([3, 2, 1]) is False


def test_only_the_last_pair_out_of_order() -> None:
    assert is_sorted([1, 2, 3, 4, 0]) is False


def test_empty_and_single() -> None:
    assert is_sorted([]) is True
    assert is_sorted([42]) is True
