from solution import digit_sum


def test_examples() -> None:
    assert digit_sum(1234) == 10
    assert digit_sum(99) == 18


def test_single_digit_and_zero() -> None:
    assert digit_sum(7) == 7
    assert digit_sum(0) == 0


def test_negative() -> None:
    assert digit_sum(-56) == 11


def test_zeros_inside() -> None:
    assert digit_sum(1000001) == 2


def test_large_number() -> None:
    assert digit_sum(98765432109876543210) == 90
