from solution import longest_run


def test_longest_run_in_the_middle() -> None:
    assert longest_run([1, 1, 2, 2, 2, 1]) == (2, 3)


def test_longest_run_at_the_end() -> None:
    assert longest_run([3, 1, 1, 1, 1]) == (1, 4)


def test_tie_goes_to_the_first_run() -> None:
    assert longest_run(["a", "b", "b", "c", "c"]) == ("b", 2)
    assert longest_run([7, 7, 5, 5]) == (7, 2)
    assert longest_run([4, 5, 6]) == (4, 1)


def test_separated_equal_items_do_not_join() -> None:
    assert longest_run([1, 2, 1, 2, 1]) == (1, 1)
    assert longest_run([9, 8, 9, 9]) == (9, 2)


def test_single_value() -> None:
    assert longest_run(["x"]) == ("x", 1)
    assert longest_run([0, 0, 0]) == (0, 3)


def test_empty_list() -> None:
    assert longest_run([]) is None
