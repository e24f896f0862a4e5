from solution import file_extension


def test_simple_extension() -> None:
    assert file_extension("notes.txt") == "txt"


def test_lower_case() -> None:
    assert file_extension("IMG_0042.JPEG") == "jpeg"
    assert file_extension("Report.Pdf") == "pdf"


def test_only_the_last_dot_counts() -> None:
    assert file_extension("backup.2024.tar.gz") == "gz"
    assert file_extension(".config.json") == "json"


def test_no_dot() -> None:
    assert file_extension("Makefile") == ""
    assert file_extension("") == ""


def test_hidden_file() -> None:
    assert file_extension(".bashrc") == ""


def test_trailing_dot() -> None:
    assert file_extension("notes.") == ""
