from solution import wrap_words


def test_basic_wrapping() -> None:
    assert wrap_words("the quick brown fox", 10) == ["the quick", "brown fox"]
    assert wrap_words("one two three four five", 9) == ["one two", "three", "four five"]


def test_line_may_be_exactly_width() -> None:
    assert wrap_words("abc def ghi", 7) == ["abc def", "ghi"]
    assert wrap_words("abc def", 6) == ["abc", "def"]


def test_everything_fits_on_one_line() -> None:
    assert wrap_words("hello world", 50) == ["hello world"]


def test_long_word_gets_own_line() -> None:
    assert wrap_words("a verylongword b", 4) == ["a", "verylongword", "b"]
    assert wrap_words("supercalifragilistic", 5) == ["supercalifragilistic"]


def test_any_whitespace_separates_words() -> None:
    assert wrap_words("  one\ttwo\n\nthree   four ", 8) == ["one two", "three", "four"]


def test_no_words() -> None:
    assert wrap_words("", 10) == []
    assert wrap_words(" \n\t ", 10) == []
