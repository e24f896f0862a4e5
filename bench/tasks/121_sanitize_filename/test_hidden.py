from solution import sanitize_filename


def test_unsafe_characters_become_underscores() -> None:
    assert sanitize_filename('a<b>c"d|e') == "a_b_c_d_e"
    assert sanitize_filename("dir\\file*.txt") == "dir_file_.txt"


def test_runs_are_collapsed() -> None:
    assert sanitize_filename("a??b") == "a_b"
    assert sanitize_filename("a__:_b") == "a_b"
    assert sanitize_filename("my \t  photo\n.jpg") == "my photo .jpg"


def test_ends_are_trimmed() -> None:
    assert sanitize_filename(". hidden .") == "hidden"
    assert sanitize_filename("archive.tar.gz") == "archive.tar.gz"
    assert sanitize_filename("_x_") == "_x_"


def test_reserved_names() -> None:
    assert sanitize_filename("NUL") == "_NUL"
    assert sanitize_filename("lpt9.log.txt") == "_lpt9.log.txt"
    assert sanitize_filename("Com3") == "_Com3"
    assert sanitize_filename("console.txt") == "console.txt"
    assert sanitize_filename("COM10") == "COM10"


def test_nothing_left() -> None:
    assert sanitize_filename("") == "unnamed"
    assert sanitize_filename("   ") == "unnamed"
    assert sanitize_filename("???") == "_"


def test_other_characters_are_kept() -> None:
    assert sanitize_filename("Résumé (final) #2.docx") == "Résumé (final) #2.docx"
