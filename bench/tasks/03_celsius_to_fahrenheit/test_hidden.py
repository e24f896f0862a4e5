import math

from solution import celsius_to_fahrenheit


def test_freezing_and_boiling() -> None:
    assert math.isclose(celsius_to_fahrenheit(0), 32.0)
    assert math.isclose(celsius_to_fahrenheit(100), 212.0)


def test_minus_forty_is_the_same() -> None:
    assert math.isclose(celsius_to_fahrenheit(-40), -40.0)


def test_fractional_values() -> None:
    assert math.isclose(celsius_to_fahrenheit(37), 98.6)
    assert math.isclose(celsius_to_fahrenheit(36.6), 97.88)


def test_negative_values() -> None:
    assert math.isclose(celsius_to_fahrenheit(-10), 14.0)


def test_returns_a_float() -> None:
    assert isinstance(celsius_to_fahrenheit(10), float)
