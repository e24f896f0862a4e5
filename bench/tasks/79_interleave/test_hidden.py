from solution import interleave


def test_equal_lengths() -> None:
    assert interleave([1, 2, 3], ["a", "b", "c"]) == [1, "a", 2, "b", 3, "c"]


def test_first_longer() -> None:
    assert interleave([1, 2, 3, 4], ["x"]) == [1, "x", 2, 3, 4]


def test_second_longer() -> None:
    assert interleave(["a"], [10, 20, 30]) == ["a", 10, 20, 30]


def test_empty_lists() -> None:
    assert interleave([], [1, 2]) == [1, 2]
    assert interleave([1, 2], []) == [1, 2]
    assert interleave([], []) == []


def test_inputs_not_modified() -> None:
    first, second = [1, 2], [3, 4]
    assert interleave(first, second) == [1, 3, 2, 4]
    assert first == [1, 2]
    assert second == [3, 4]
