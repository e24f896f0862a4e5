from solution import normalize_spaces


def test_collapses_spaces_and_tabs() -> None:
    assert normalize_spaces("a  b\t\tc \t d") == "a b c d"


def test_strips_each_line() -> None:
    assert normalize_spaces("  hello  \n\tworld\t") == "hello\nworld"


def test_keeps_line_breaks() -> None:
    assert normalize_spaces("one\ntwo  three\nfour") == "one\ntwo three\nfour"


def test_empty_lines_in_a_row_become_one() -> None:
    assert normalize_spaces("a  b\n\n\n\tc ") == "a b\n\nc"
    assert normalize_spaces("a\n\nb") == "a\n\nb"


def test_lines_of_only_spaces_count_as_empty() -> None:
    assert normalize_spaces("a\n   \n\t\nb") == "a\n\nb"


def test_empty_text() -> None:
    assert normalize_spaces("") == ""
    assert normalize_spaces(" \t ") == ""
