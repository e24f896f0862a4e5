from solution import stagger_encode


def test_example_and_empty() -> None:
    assert stagger_encode("ab, c") == "ac, e"
    assert stagger_encode("") == ""


def test_same_letter_repeated() -> None:
    assert stagger_encode("aaaa") == "abcd"
    assert stagger_encode("hello") == "hfnos"


def test_wraps_around() -> None:
    assert stagger_encode("zz") == "za"
    assert stagger_encode("xyz") == "xzb"
    assert stagger_encode("a" * 28) == "abcdefghijklmnopqrstuvwxyzab"


def test_keeps_case() -> None:
    assert stagger_encode("AbC") == "AcE"
    assert stagger_encode("ZZz") == "ZAb"


def test_other_characters_do_not_advance() -> None:
    assert stagger_encode("a-a-a") == "a-b-c"
    assert stagger_encode("1 a 2 a!") == "1 a 2 b!"
    assert stagger_encode("12 ?!") == "12 ?!"


def test_non_ascii_letters_are_kept_and_do_not_advance() -> None:
    assert stagger_encode("\u00e9aa") == "\u00e9ab"
    assert stagger_encode("a\u00dfa") == "a\u00dfb"
