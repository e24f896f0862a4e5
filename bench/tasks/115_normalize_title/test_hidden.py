from solution import normalize_title


def test_spaces_are_collapsed() -> None:
    assert normalize_title("  hello \t  world\n") == "Hello World"


def test_minor_words_inside_are_lower_case() -> None:
    assert normalize_title("war AND peace") == "War and Peace"
    assert normalize_title("notes ON the design OF a cache") == "Notes on the Design of a Cache"


def test_first_and_last_words_are_capitalised() -> None:
    assert normalize_title("the end") == "The End"
    assert normalize_title("of mice and men to") == "Of Mice and Men To"


def test_acronyms_are_kept() -> None:
    assert normalize_title("using SQL in the HTTP API") == "Using SQL in the HTTP API"
    assert normalize_title("I love a JSON") == "I Love a JSON"


def test_mixed_case_words() -> None:
    assert normalize_title("hELLO wORLD") == "Hello World"
    assert normalize_title("a well-known fact") == "A Well-known Fact"
    assert normalize_title("o'neil's 2nd book") == "O'neil's 2nd Book"


def test_single_and_empty_titles() -> None:
    assert normalize_title("the") == "The"
    assert normalize_title("") == ""
    assert normalize_title("  ") == ""
