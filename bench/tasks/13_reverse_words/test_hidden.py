from solution import reverse_words


def test_reverses_word_order() -> None:
    assert reverse_words("hello world") == "world hello"
    assert reverse_words("the quick brown fox") == "fox brown quick the"


def test_single_word() -> None:
    assert reverse_words("python") == "python"


def test_extra_whitespace_dropped() -> None:
    assert reverse_words("  one   two\tthree  ") == "three two one"


def test_punctuation_stays_with_word() -> None:
    assert reverse_words("Hello, world!") == "world! Hello,"


def test_empty_and_blank() -> None:
    assert reverse_words("") == ""
    assert reverse_words("   ") == ""
