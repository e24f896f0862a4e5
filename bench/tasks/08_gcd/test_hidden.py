from solution import gcd


def test_common_divisor() -> None:
    assert gcd(12, 18) == 6
    assert gcd(48, 180) == 12


def test_coprime() -> None:
    assert gcd(17, 5) == 1


def test_negative_inputs() -> None:
    assert gcd(-12, 18) == 6
    assert gcd(12, -18) == 6
    assert gcd(-12, -18) == 6


def test_zero() -> None:
    assert gcd(0, 7) == 7
    assert gcd(7, 0) == 7
    assert gcd(-4, 0) == 4
    assert gcd(0, 0) == 0
