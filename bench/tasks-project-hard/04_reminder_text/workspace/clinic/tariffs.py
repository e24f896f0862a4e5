"""Tariff points for the monthly invoices."""

POINT_VALUE_CHF = 0.89
CONSULTATION_POINTS = {"short": 18.4, "normal": 36.8, "long": 55.2}


def consultation_chf(kind: str) -> float:
    """Return the price of a consultation kind in francs, rounded to 5 Rappen."""
    amount = CONSULTATION_POINTS[kind] * POINT_VALUE_CHF
    return round(amount * 20) / 20
