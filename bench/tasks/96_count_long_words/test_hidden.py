from solution import count_long_words


def test_one_line() -> None:
    assert count_long_words("the quick brown fox jumps", 3) == [3]


def test_several_lines() -> None:
    assert count_long_words("hello world\nhi there friend\nok", 4) == [2, 2, 0]


def test_exactly_n_characters_does_not_count() -> None:
    assert count_long_words("abc abcd ab", 3) == [1]
    assert count_long_words("four five", 4) == [0]


def test_empty_lines_count_zero() -> None:
    assert count_long_words("alpha\n\nbeta", 3) == [1, 0, 1]


def test_any_whitespace_separates_words() -> None:
    assert count_long_words("  long\twords   here  \nx", 3) == [3, 0]


def test_final_newline_and_empty_text() -> None:
    assert count_long_words("alpha beta\n", 3) == [2]
    assert count_long_words("alpha\n\n", 3) == [1, 0]
    assert count_long_words("", 3) == []
