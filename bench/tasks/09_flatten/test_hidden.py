from solution import flatten


def test_one_level() -> None:
    assert flatten([1, [2, 3], 4]) == [1, 2, 3, 4]


def test_deep_nesting() -> None:
    assert flatten([1, [2, [3, [4, [5]]]]]) == [1, 2, 3, 4, 5]


def test_already_flat() -> None:
    assert flatten([1, 2, 3]) == [1, 2, 3]


def test_empty_lists() -> None:
    assert flatten([]) == []
    assert flatten([[], [[]], [[], []]]) == []


def test_strings_are_items() -> None:
    assert flatten(["ab", ["cd", ["ef"]]]) == ["ab", "cd", "ef"]


def test_input_not_modified() -> None:
    data = [1, [2, [3]]]
    flatten(data)
    assert data == [1, [2, [3]]]
