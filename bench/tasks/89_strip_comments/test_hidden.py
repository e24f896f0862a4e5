from solution import strip_comments


def test_examples() -> None:
    assert strip_comments("x = 1  # one\ny = 2") == "x = 1\ny = 2"
    assert strip_comments("# header\nprint(x)") == "\nprint(x)"


def test_single_line() -> None:
    assert strip_comments("total = a + b    # add them") == "total = a + b"


def test_cut_at_the_first_hash() -> None:
    assert strip_comments("a = 2 # first # second") == "a = 2"


def test_lines_without_hash_unchanged() -> None:
    assert strip_comments("keep  \n  indented") == "keep  \n  indented"


def test_indentation_before_a_comment_is_removed() -> None:
    assert strip_comments("def f():\n    # nothing\n    return 1") == "def f():\n\n    return 1"


def test_no_comments_at_all() -> None:
    assert strip_comments("") == ""
    assert strip_comments("a\nb") == "a\nb"
