from solution import word_count


def test_counts_repeated_words() -> None:
    assert word_count("the cat and the dog") == {"the": 2, "cat": 1, "and": 1, "dog": 1}


def test_case_insensitive_lowercase_keys() -> None:
    assert word_count("Hello hello HELLO") == {"hello": 3}


def test_any_whitespace_separates() -> None:
    assert word_count("a  b\tb\na ") == {"a": 2, "b": 2}


def test_punctuation_is_part_of_the_word() -> None:
    assert word_count("hi hi! hi") == {"hi": 2, "hi!": 1}


def test_empty_text() -> None:
    assert word_count("") == {}
    assert word_count("  \n ") == {}
