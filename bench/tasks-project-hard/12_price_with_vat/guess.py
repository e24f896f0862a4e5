"""Best guess without the project: a standard and a reduced rate."""

from decimal import ROUND_HALF_UP, Decimal

RATES = {"books": Decimal("0.06"), "food": Decimal("0.06"), "medicine": Decimal("0.06")}
STANDARD = Decimal("0.21")


def price_with_vat(net_cents: int, category: str) -> int:
    """Return net_cents plus tax for the category, in whole cents."""
    rate = RATES.get(category, STANDARD)
    gross = Decimal(net_cents) * (1 + rate)
    return int(gross.quantize(Decimal(1), rounding=ROUND_HALF_UP))
