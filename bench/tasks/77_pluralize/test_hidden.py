from solution import pluralize


def test_one_is_singular() -> None:
    assert pluralize("apple", 1) == "1 apple"
    assert pluralize("box", 1) == "1 box"


def test_more_than_one_is_plural() -> None:
    assert pluralize("apple", 3) == "3 apples"
    assert pluralize("dog", 2) == "2 dogs"


def test_zero_is_plural() -> None:
    assert pluralize("cat", 0) == "0 cats"


def test_large_count() -> None:
    assert pluralize("file", 1000) == "1000 files"


def test_word_is_kept_as_written() -> None:
    assert pluralize("Bus", 1) == "1 Bus"
    assert pluralize("Item", 12) == "12 Items"
