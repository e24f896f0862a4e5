"""Reference solution: gross order total as the receipts show it."""

from decimal import Decimal

from shop.pricing import format_chf
from shop.tax import VAT_STANDARD


def order_total_label(items: list[tuple[float, int]]) -> str:
    """Return the gross total of the items in the receipt format."""
    net = sum((Decimal(str(price)) * quantity for price, quantity in items), Decimal(0))
    return format_chf(net * (1 + VAT_STANDARD))
