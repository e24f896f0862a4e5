from solution import initials


def test_two_words() -> None:
    assert initials("ada lovelace") == "AL"
    assert initials("Alan Turing") == "AT"


def test_many_words_and_extra_spaces() -> None:
    assert initials("  grace   brewster murray hopper ") == "GBMH"


def test_single_word() -> None:
    assert initials("plato") == "P"


def test_tabs_and_newlines_separate_words() -> None:
    assert initials("john\tron\nreuel tolkien") == "JRRT"


def test_empty_or_blank() -> None:
    assert initials("") == ""
    assert initials("   ") == ""
