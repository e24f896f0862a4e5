from solution import count_code_lines


def test_code_lines_counted() -> None:
    source = "import sys\n\n\ndef main():\n    print(sys.argv)\n"
    assert count_code_lines(source) == 3


def test_comment_lines_skipped() -> None:
    source = "# header\n#!/usr/bin/env python\nx = 1\n    # note\n"
    assert count_code_lines(source) == 1


def test_code_with_a_comment_counts() -> None:
    assert count_code_lines("y = 2  # two\nz = 3 # three") == 2


def test_whitespace_only_lines_are_blank() -> None:
    assert count_code_lines("a = 1\n   \n\t\n  \t \nb = 2") == 2


def test_empty_and_comments_only() -> None:
    assert count_code_lines("") == 0
    assert count_code_lines("# one\n\n# two\n") == 0


def test_no_final_newline() -> None:
    assert count_code_lines("pass") == 1
