"""Repair prices and durations of the FixIt shops."""

LABOUR_CENTS_PER_HOUR = 4800
HOURS = {"display": 1.0, "battery": 0.5, "charging port": 0.75, "camera": 1.0}


def repair_price_cents(fault: str, part_cents: int) -> int:
    """Return the price of a repair in cents: the part plus the labour for the fault."""
    return part_cents + round(HOURS.get(fault, 1.5) * LABOUR_CENTS_PER_HOUR)


def ready_same_day(fault: str) -> bool:
    """Tell whether a repair of this kind is usually done on the same day."""
    return HOURS.get(fault, 1.5) <= 1.0
