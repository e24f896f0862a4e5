from solution import count_unique_visitors


def test_repeat_visits_count_once() -> None:
    assert count_unique_visitors(["x9", "y8", "x9", "z7", "y8"]) == 3


def test_all_different() -> None:
    assert count_unique_visitors(["a", "b", "c"]) == 3


def test_case_and_spaces_ignored() -> None:
    assert count_unique_visitors(["F00D", "f00d", "  f00D  ", "beef"]) == 2


def test_blank_ids_not_counted() -> None:
    assert count_unique_visitors(["", "   ", "\t", "id1"]) == 1
    assert count_unique_visitors(["", " "]) == 0


def test_empty() -> None:
    assert count_unique_visitors([]) == 0
