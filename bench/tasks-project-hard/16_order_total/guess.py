"""Best guess without the project: 5% from 10, 10% from 50, 15% from 100."""

from decimal import ROUND_HALF_UP, Decimal

TIERS = [(100, 15), (50, 10), (10, 5)]


def order_total(unit_price_cents: int, qty: int) -> int:
    """Return the discounted total in cents for qty items."""
    percent = next((p for minimum, p in TIERS if qty >= minimum), 0)
    total = Decimal(unit_price_cents * qty) * (100 - percent) / 100
    return int(total.quantize(Decimal(1), rounding=ROUND_HALF_UP))
