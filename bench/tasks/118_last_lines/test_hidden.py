from solution import last_lines


def test_last_lines() -> None:
    assert last_lines("l1\nl2\nl3\nl4\n", 3) == ["l2", "l3", "l4"]
    assert last_lines("l1\nl2\nl3\nl4\n", 1) == ["l4"]


def test_without_a_final_newline() -> None:
    assert last_lines("l1\nl2\nl3", 2) == ["l2", "l3"]


def test_fewer_lines_than_asked() -> None:
    assert last_lines("one\ntwo\n", 10) == ["one", "two"]


def test_zero_count() -> None:
    assert last_lines("a\nb\n", 0) == []


def test_empty_text() -> None:
    assert last_lines("", 3) == []


def test_empty_lines_inside_count() -> None:
    assert last_lines("a\n\nb\n", 2) == ["", "b"]
    assert last_lines("a\n\n", 5) == ["a", ""]
