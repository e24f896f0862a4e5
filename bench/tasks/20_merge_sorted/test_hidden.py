from solution import merge_sorted


def test_interleaved() -> None:
    assert merge_sorted([1, 3, 5], [2, 4, 6]) == [1, 2, 3, 4, 5, 6]


def test_different_lengths() -> None:
    assert merge_sorted([1, 10], [2, 3, 4, 5]) == [1, 2, 3, 4, 5, 10]


def test_keeps_duplicates() -> None:
    assert merge_sorted([1, 2, 2], [2, 3]) == [1, 2, 2, 2, 3]


def test_empty_lists() -> None:
    assert merge_sorted([], [1, 2]) == [1, 2]
    assert merge_sorted([1, 2], []) == [1, 2]
    assert merge_sorted([], []) == []


def test_negative_numbers() -> None:
    assert merge_sorted([-5, 0], [-3, 8]) == [-5, -3, 0, 8]


def test_inputs_not_modified() -> None:
    first, second = [1, 4], [2, 3]
    merge_sorted(first, second)
    assert first == [1, 4]
    assert second == [2, 3]
