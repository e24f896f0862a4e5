from solution import progress_bar


def test_empty_and_full() -> None:
    assert progress_bar(0, 10, 5) == "[-----]"
    assert progress_bar(10, 10, 5) == "[#####]"


def test_partly_done() -> None:
    assert progress_bar(5, 10, 10) == "[#####-----]"
    assert progress_bar(2, 8, 4) == "[#---]"


def test_rounds_down() -> None:
    assert progress_bar(99, 100, 10) == "[#########-]"
    assert progress_bar(2, 3, 10) == "[######----]"
    assert progress_bar(2, 4, 1) == "[-]"


def test_done_above_total() -> None:
    assert progress_bar(12, 10, 5) == "[#####]"


def test_zero_total_is_full() -> None:
    assert progress_bar(0, 0, 4) == "[####]"


def test_length() -> None:
    assert len(progress_bar(3, 7, 20)) == 22
