from solution import zip_to_dict


def test_same_length() -> None:
    assert zip_to_dict(["a", "b"], [1, 2]) == {"a": 1, "b": 2}


def test_more_keys_than_values() -> None:
    assert zip_to_dict(["a", "b", "c"], [1]) == {"a": 1, "b": None, "c": None}
    assert zip_to_dict(["x"], []) == {"x": None}


def test_more_values_than_keys() -> None:
    assert zip_to_dict(["a"], [1, 2, 3]) == {"a": 1}
    assert zip_to_dict([], [1, 2]) == {}


def test_repeated_key_keeps_the_later_value() -> None:
    assert zip_to_dict(["k", "j", "k"], [1, 2, 3]) == {"k": 3, "j": 2}


def test_empty_lists() -> None:
    assert zip_to_dict([], []) == {}
