"""Hidden tests for vat_cents."""

from solution import vat_cents


def test_standard() -> None:
    """The standard rate."""
    assert vat_cents(10000, "standard") == 810
    assert vat_cents(12345, "standard") == 1000


def test_reduced() -> None:
    """The reduced rate for food and books."""
    assert vat_cents(5000, "reduced") == 130


def test_reduced_rounding() -> None:
    """The result is rounded to the nearest cent."""
    assert vat_cents(1990, "reduced") == 52


def test_lodging() -> None:
    """Overnight stays have their own rate."""
    assert vat_cents(10000, "lodging") == 380
    assert vat_cents(8900, "lodging") == 338
