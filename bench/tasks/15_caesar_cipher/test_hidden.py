from solution import caesar_cipher


def test_simple_shift() -> None:
    assert caesar_cipher("abc", 1) == "bcd"


def test_wraps_around() -> None:
    assert caesar_cipher("xyz", 3) == "abc"
    assert caesar_cipher("XYZ", 3) == "ABC"


def test_keeps_case_and_other_characters() -> None:
    assert caesar_cipher("Hello, World!", 3) == "Khoor, Zruog!"


def test_negative_shift() -> None:
    assert caesar_cipher("bcd", -1) == "abc"
    assert caesar_cipher("abc", -3) == "xyz"


def test_large_shift_and_zero() -> None:
    assert caesar_cipher("abc", 27) == "bcd"
    assert caesar_cipher("abc", 52) == "abc"
    assert caesar_cipher("Same", 0) == "Same"


def test_shift_back_restores() -> None:
    assert caesar_cipher(caesar_cipher("Attack at dawn", 13), -13) == "Attack at dawn"
