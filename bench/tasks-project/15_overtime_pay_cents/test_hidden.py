"""Hidden tests for overtime_pay_cents."""

from solution import overtime_pay_cents


def test_short_week() -> None:
    """A short week has no overtime."""
    assert overtime_pay_cents(30) == 0


def test_exact_contract_week() -> None:
    """The contract hours themselves are no overtime."""
    assert overtime_pay_cents(36) == 0


def test_one_extra_hour() -> None:
    """One hour beyond the contract."""
    assert overtime_pay_cents(37) == 2840


def test_several_extra_hours() -> None:
    """Several hours beyond the contract."""
    assert overtime_pay_cents(40) == 11360
    assert overtime_pay_cents(45) == 25560
