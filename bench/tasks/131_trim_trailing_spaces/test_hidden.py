from solution import trim_trailing_spaces


def test_spaces_and_tabs_removed() -> None:
    assert trim_trailing_spaces("x = 1   \ny = 2\t \n") == "x = 1\ny = 2\n"


def test_indentation_and_inner_spaces_kept() -> None:
    text = "if a:\n    b  =  1  \n"
    assert trim_trailing_spaces(text) == "if a:\n    b  =  1\n"


def test_whitespace_only_lines_become_empty() -> None:
    assert trim_trailing_spaces("a\n  \t \nb") == "a\n\nb"


def test_end_of_text_without_newline() -> None:
    assert trim_trailing_spaces("last   ") == "last"


def test_line_breaks_kept() -> None:
    assert trim_trailing_spaces("\n\n") == "\n\n"
    assert trim_trailing_spaces("a\n\n\n") == "a\n\n\n"


def test_empty_text() -> None:
    assert trim_trailing_spaces("") == ""
