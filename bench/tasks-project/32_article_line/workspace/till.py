"""Money helpers for the till screen."""


def euro_text(cents: int) -> str:
    """Return an amount in cents as the till screen shows it, e.g. 1290 -> '12,90 EUR'."""
    return f"{cents // 100},{cents % 100:02d} EUR"


def change_due(total_cents: int, paid_cents: int) -> int:
    """Return the change to give back in cents; raise ValueError if too little was paid."""
    if paid_cents < total_cents:
        raise ValueError("not enough paid")
    return paid_cents - total_cents


def vat_included(gross_cents: int, rate_percent: int) -> int:
    """Return the VAT part of a gross amount in cents, rounded to whole cents."""
    return round(gross_cents * rate_percent / (100 + rate_percent))
