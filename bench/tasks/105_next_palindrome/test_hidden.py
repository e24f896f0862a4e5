from solution import next_palindrome


def test_single_digits() -> None:
    assert next_palindrome(0) == 1
    assert next_palindrome(4) == 5


def test_crossing_into_two_digits() -> None:
    assert next_palindrome(9) == 11
    assert next_palindrome(11) == 22


def test_three_digits() -> None:
    assert next_palindrome(121) == 131
    assert next_palindrome(123) == 131
    assert next_palindrome(191) == 202


def test_nines() -> None:
    assert next_palindrome(99) == 101
    assert next_palindrome(999) == 1001


def test_negative_numbers() -> None:
    assert next_palindrome(-5) == 0
    assert next_palindrome(-1) == 0


def test_larger_number() -> None:
    assert next_palindrome(12345) == 12421
