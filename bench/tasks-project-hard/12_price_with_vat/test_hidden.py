"""Hidden tests for price_with_vat."""

from solution import price_with_vat


def test_full_band() -> None:
    """Electronics pay the full rate."""
    assert price_with_vat(1000, "electronics") == 1170
    assert price_with_vat(2750, "toys") == 3218


def test_low_band() -> None:
    """Books and repairs pay the low rate."""
    assert price_with_vat(2000, "books") == 2110
    assert price_with_vat(1500, "repairs") == 1583


def test_exempt_band() -> None:
    """Gift cards and medicine are exempt."""
    assert price_with_vat(2500, "gift_cards") == 2500
    assert price_with_vat(799, "medicine") == 799


def test_unlisted_category_uses_fallback() -> None:
    """A category not in the table gets the fallback band."""
    assert price_with_vat(500, "garden") == 585


def test_half_cent_rounds_up() -> None:
    """Half a cent rounds up."""
    assert price_with_vat(100, "food") == 106
    assert price_with_vat(50, "toys") == 59


def test_zero() -> None:
    """Zero stays zero."""
    assert price_with_vat(0, "books") == 0
