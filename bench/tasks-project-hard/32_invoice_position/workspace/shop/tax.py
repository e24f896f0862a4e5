"""VAT helpers for the shop's prices (all amounts in cents)."""

RATES = {"standard": 19, "reduced": 7}


def vat_cents(gross_cents: int, rate_name: str) -> int:
    """Return the VAT contained in a gross price, rounded to whole cents.

    Args:
        gross_cents: The price including VAT, in cents.
        rate_name: "standard" or "reduced".

    Returns:
        The VAT part of the price, in cents.
    """
    rate = RATES[rate_name]
    return round(gross_cents * rate / (100 + rate))


def net_cents(gross_cents: int, rate_name: str) -> int:
    """Return the price without VAT, in cents."""
    return gross_cents - vat_cents(gross_cents, rate_name)
