from solution import max_subarray_sum


def test_classic_example() -> None:
    assert max_subarray_sum([-2, 1, -3, 4, -1, 2, 1, -5, 4]) == 6


def test_all_positive() -> None:
    assert max_subarray_sum([1, 2, 3]) == 6


def test_all_negative() -> None:
    assert max_subarray_sum([-3, -1, -2]) == -1


def test_single_element() -> None:
    assert max_subarray_sum([5]) == 5
    assert max_subarray_sum([-5]) == -5


def test_run_in_the_middle() -> None:
    assert max_subarray_sum([-1, 3, 4, -10, 2]) == 7


def test_empty() -> None:
    assert max_subarray_sum([]) == 0
