from solution import compress_ranges


def test_example() -> None:
    assert compress_ranges([5, 1, 2, 3, 7, 8]) == "1-3,5,7-8"


def test_empty_and_single() -> None:
    assert compress_ranges([]) == ""
    assert compress_ranges([4]) == "4"


def test_duplicates_are_dropped() -> None:
    assert compress_ranges([2, 2, 3, 3, 3]) == "2-3"
    assert compress_ranges([9, 9]) == "9"


def test_pair_is_a_range() -> None:
    assert compress_ranges([10, 11]) == "10-11"


def test_no_runs() -> None:
    assert compress_ranges([1, 3, 5]) == "1,3,5"


def test_negative_numbers() -> None:
    assert compress_ranges([-2, -1, 0, 2]) == "-2-0,2"
