from solution import is_leap_year


def test_divisible_by_four() -> None:
    assert is_leap_year(2024) is True
    assert is_leap_year(1996) is True


def test_not_divisible_by_four() -> None:
    assert is_leap_year(2023) is False
    assert is_leap_year(2001) is False


def test_centuries_are_not_leap() -> None:
    assert is_leap_year(1900) is False
    assert is_leap_year(2100) is False


def test_every_four_hundred_years() -> None:
    assert is_leap_year(2000) is True
    assert is_leap_year(1600) is True
