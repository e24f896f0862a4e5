from solution import roman_to_int


def test_additive() -> None:
    assert roman_to_int("I") == 1
    assert roman_to_int("III") == 3
    assert roman_to_int("LVIII") == 58


def test_subtractive_pairs() -> None:
    assert roman_to_int("IV") == 4
    assert roman_to_int("IX") == 9
    assert roman_to_int("XL") == 40
    assert roman_to_int("XC") == 90
    assert roman_to_int("CD") == 400
    assert roman_to_int("CM") == 900


def test_mixed() -> None:
    assert roman_to_int("MCMXCIV") == 1994
    assert roman_to_int("MMXXIV") == 2024


def test_largest() -> None:
    assert roman_to_int("MMMCMXCIX") == 3999
