from solution import indent_lines


def test_every_line_indented() -> None:
    assert indent_lines("one\ntwo\nthree", 3) == "   one\n   two\n   three"


def test_existing_indentation_is_kept() -> None:
    assert indent_lines("if x:\n    y()", 2) == "  if x:\n      y()"


def test_blank_lines_stay_as_they_are() -> None:
    assert indent_lines("a\n\nb", 2) == "  a\n\n  b"
    assert indent_lines("a\n   \nb", 2) == "  a\n   \n  b"


def test_final_newline_kept() -> None:
    assert indent_lines("k: v\n", 4) == "    k: v\n"


def test_zero_spaces() -> None:
    assert indent_lines("a\n b\n", 0) == "a\n b\n"


def test_empty_text() -> None:
    assert indent_lines("", 3) == ""
