from solution import top_words


def test_examples() -> None:
    assert top_words("the cat and the hat", 2) == [("the", 2), ("and", 1)]
    assert top_words("B a b", 5) == [("b", 2), ("a", 1)]


def test_ties_are_alphabetical() -> None:
    assert top_words("pear apple fig", 3) == [("apple", 1), ("fig", 1), ("pear", 1)]


def test_punctuation_and_digits_separate_words() -> None:
    assert top_words("Hi!hi, it's 2day", 3) == [("hi", 2), ("day", 1), ("it", 1)]


def test_case_is_ignored() -> None:
    assert top_words("Go GO go stop", 1) == [("go", 3)]


def test_empty_text_and_zero() -> None:
    assert top_words("", 3) == []
    assert top_words("a b c", 0) == []
