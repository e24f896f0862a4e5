from solution import reading_time


def test_exact_minutes() -> None:
    assert reading_time(" ".join(["word"] * 400), 200) == 2


def test_rounds_up() -> None:
    assert reading_time(" ".join(["word"] * 401), 200) == 3
    assert reading_time("a b c d e", 2) == 3


def test_short_text_takes_one_minute() -> None:
    assert reading_time("Hi", 250) == 1


def test_words_split_on_any_whitespace() -> None:
    assert reading_time("don't  e-mail\nme\tnow", 1) == 4


def test_empty_text() -> None:
    assert reading_time("", 200) == 0
    assert reading_time(" \n\t ", 200) == 0
