from solution import split_full_name


def test_two_words() -> None:
    assert split_full_name("Grace Hopper") == ("Grace", "Hopper")


def test_many_words() -> None:
    assert split_full_name("Anna Maria van Dijk") == ("Anna", "Maria van Dijk")


def test_extra_whitespace() -> None:
    assert split_full_name("  Alan \t Mathison   Turing  ") == ("Alan", "Mathison Turing")


def test_one_word() -> None:
    assert split_full_name("Cher") == ("Cher", "")
    assert split_full_name("  Prince ") == ("Prince", "")


def test_empty_or_blank() -> None:
    assert split_full_name("") == ("", "")
    assert split_full_name("   ") == ("", "")


def test_case_is_kept() -> None:
    assert split_full_name("mARY o'NEIL") == ("mARY", "o'NEIL")
