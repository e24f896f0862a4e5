from solution import format_list


def test_empty() -> None:
    assert format_list([]) == ""


def test_one_item() -> None:
    assert format_list(["tea"]) == "tea"


def test_two_items() -> None:
    assert format_list(["tea", "milk"]) == "tea and milk"


def test_three_items() -> None:
    assert format_list(["tea", "coffee", "milk"]) == "tea, coffee and milk"


def test_many_items() -> None:
    assert format_list(["a", "b", "c", "d", "e"]) == "a, b, c, d and e"


def test_items_kept_as_written() -> None:
    assert format_list(["New York", "Paris", "Rome"]) == "New York, Paris and Rome"
