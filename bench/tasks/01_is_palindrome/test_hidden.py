from solution import is_palindrome


def test_simple_words() -> None:
    assert is_palindrome("racecar") is True
    assert is_palindrome("hello") is False


def test_ignores_case() -> None:
    assert is_palindrome("RaceCar") is True
    assert is_palindrome("Noon") is True


def test_ignores_spaces_and_punctuation() -> None:
    assert is_palindrome("A man, a plan, a canal: Panama!") is True
    assert is_palindrome("No 'x' in Nixon") is True
    assert is_palindrome("Was it a car, or a cat I saw?") is True


def test_digits_count() -> None:
    assert is_palindrome("12321") is True
    assert is_palindrome("12345") is False


def test_empty_and_no_letters() -> None:
    assert is_palindrome("") is True
    assert is_palindrome("?! ,") is True


def test_short_strings() -> None:
    assert is_palindrome("a") is True
    assert is_palindrome("ab") is False
