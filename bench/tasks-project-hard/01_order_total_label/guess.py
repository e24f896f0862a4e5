"""Best guess without the project: Swiss VAT 8.1 %, cents rounded half up, CHF prefix."""

from decimal import ROUND_HALF_UP, Decimal


def order_total_label(items: list[tuple[float, int]]) -> str:
    """Return the gross total of the items as a display string."""
    net = sum((Decimal(str(price)) * quantity for price, quantity in items), Decimal(0))
    gross = (net * Decimal("1.081")).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    return f"CHF {gross:,.2f}"
