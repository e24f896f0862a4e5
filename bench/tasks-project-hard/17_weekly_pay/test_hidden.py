"""Hidden tests for weekly_pay."""

from solution import weekly_pay


def test_short_week() -> None:
    """A short week is paid at the plain rate."""
    assert weekly_pay(2000, 30.0) == 60000


def test_exactly_standard_week() -> None:
    """The standard week has no overtime."""
    assert weekly_pay(2000, 38.0) == 76000


def test_overtime_hours() -> None:
    """Hours past the standard week get the overtime factor."""
    assert weekly_pay(2000, 40.0) == 81400
    assert weekly_pay(1850, 45.5) == 89031


def test_overtime_rounding() -> None:
    """Half cents round up."""
    assert weekly_pay(2150, 39.0) == 84603


def test_zero_hours() -> None:
    """No hours, no pay."""
    assert weekly_pay(2150, 0.0) == 0
