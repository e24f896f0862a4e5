"""Best guess without the project: recent market rates, euros per unit."""

RATES = {"EUR": 1.0, "USD": 0.92, "GBP": 1.17, "CHF": 1.03, "SEK": 0.087, "JPY": 0.006}


def to_euro_cents(amount_cents: int, currency: str) -> int:
    """Return the amount converted to euro cents."""
    return round(amount_cents * RATES[currency])
