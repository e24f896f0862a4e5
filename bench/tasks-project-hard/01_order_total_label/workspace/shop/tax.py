"""VAT rates in force since 1 January 2024."""

from decimal import Decimal

VAT_STANDARD = Decimal("0.081")
"""Standard rate: gear, clothing, shipping."""

VAT_REDUCED = Decimal("0.026")
"""Reduced rate: food, books and maps."""

VAT_LODGING = Decimal("0.038")
"""Special rate for hut and hotel bookings sold as vouchers."""

REDUCED_CATEGORIES = frozenset({"food", "books", "maps"})


def rate_for(category: str) -> Decimal:
    """Return the VAT rate that applies to a product category.

    Args:
        category: The product category, e.g. ``"boots"`` or ``"maps"``.

    Returns:
        The rate as a fraction.
    """
    if category == "vouchers":
        return VAT_LODGING
    if category in REDUCED_CATEGORIES:
        return VAT_REDUCED
    return VAT_STANDARD
