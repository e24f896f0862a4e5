from solution import group_by_initial


def test_groups_by_first_letter() -> None:
    assert group_by_initial(["bob", "alice", "bill"]) == {"a": ["alice"], "b": ["bill", "bob"]}


def test_groups_are_sorted() -> None:
    assert group_by_initial(["cherry", "cab", "cat", "cake"]) == {
        "c": ["cab", "cake", "cat", "cherry"]
    }


def test_first_letter_ignores_case() -> None:
    assert group_by_initial(["Apple", "avocado", "Banana"]) == {
        "a": ["Apple", "avocado"],
        "b": ["Banana"],
    }


def test_sorting_ignores_case() -> None:
    assert group_by_initial(["delta", "Dart", "dog"]) == {"d": ["Dart", "delta", "dog"]}
    assert group_by_initial(["Bee", "bat", "bEE"]) == {"b": ["bat", "Bee", "bEE"]}


def test_empty_strings_are_skipped() -> None:
    assert group_by_initial(["", "kiwi", ""]) == {"k": ["kiwi"]}


def test_empty_list() -> None:
    assert group_by_initial([]) == {}
