from solution import count_vowels


def test_lowercase() -> None:
    assert count_vowels("hello") == 2
    assert count_vowels("banana") == 3


def test_mixed_case() -> None:
    assert count_vowels("HELLO World") == 3
    assert count_vowels("AEIOUaeiou") == 10


def test_y_is_not_a_vowel() -> None:
    assert count_vowels("rhythm") == 0
    assert count_vowels("yes") == 1


def test_no_vowels_or_empty() -> None:
    assert count_vowels("") == 0
    assert count_vowels("123 !?") == 0
