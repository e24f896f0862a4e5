"""Best guess without the project: typical zone rates, free shipping above 50 euro."""

import math

RATES = {
    "domestic": (495, 100),
    "eu": (995, 250),
    "world": (1995, 500),
}
FREE_ABOVE_CENTS = 5000


def shipping_cost(weight_kg: float, zone: str, order_total_cents: int) -> int:
    """Return the shipping fee in cents for a parcel to a zone."""
    if zone not in RATES:
        raise ValueError(f"unknown zone: {zone}")
    if order_total_cents >= FREE_ABOVE_CENTS:
        return 0
    base, per_kg = RATES[zone]
    return base + math.ceil(weight_kg) * per_kg
