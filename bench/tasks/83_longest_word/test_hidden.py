from solution import longest_word


def test_examples() -> None:
    assert longest_word("the quick brown fox") == "quick"
    assert longest_word("to be or not") == "not"


def test_first_of_equal_lengths() -> None:
    assert longest_word("cat dog owl") == "cat"


def test_punctuation_is_part_of_a_word() -> None:
    assert longest_word("wait, really?") == "really?"


def test_any_whitespace_separates() -> None:
    assert longest_word("a\tbb\nccc  dd") == "ccc"


def test_single_word() -> None:
    assert longest_word("  hello  ") == "hello"


def test_no_words() -> None:
    assert longest_word("") == ""
    assert longest_word("   ") == ""
