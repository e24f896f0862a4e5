from solution import is_prime


def test_small_primes() -> None:
    assert all(is_prime(n) is True for n in [2, 3, 5, 7, 11, 13, 97])


def test_small_composites() -> None:
    assert all(is_prime(n) is False for n in [4, 6, 9, 15, 21, 25, 100])


def test_below_two() -> None:
    assert is_prime(1) is False
    assert is_prime(0) is False
    assert is_prime(-7) is False


def test_larger_numbers() -> None:
    assert is_prime(7919) is True
    assert is_prime(104729) is True
    assert is_prime(7921) is False
