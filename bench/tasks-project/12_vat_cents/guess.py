"""Best guess without the project: 8.1 % standard (from the example), usual other rates."""

RATES = {"standard": 8.1, "reduced": 2.5, "zero": 0.0, "hotel": 3.7, "accommodation": 3.7}


def vat_cents(net_cents: int, category: str) -> int:
    """Return the VAT in cents for a net amount of a category."""
    return round(net_cents * RATES[category] / 100)
