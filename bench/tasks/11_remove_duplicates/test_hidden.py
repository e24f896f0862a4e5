from solution import remove_duplicates


def test_keeps_first_occurrences_in_order() -> None:
    assert remove_duplicates([3, 1, 3, 2, 1]) == [3, 1, 2]


def test_strings_are_case_sensitive() -> None:
    assert remove_duplicates(["a", "A", "a", "b"]) == ["a", "A", "b"]


def test_no_duplicates_unchanged() -> None:
    assert remove_duplicates([1, 2, 3]) == [1, 2, 3]


def test_empty() -> None:
    assert remove_duplicates([]) == []


def test_input_not_modified() -> None:
    data = [1, 1, 2]
    result = remove_duplicates(data)
    assert data == [1, 1, 2]
    assert result == [1, 2]
