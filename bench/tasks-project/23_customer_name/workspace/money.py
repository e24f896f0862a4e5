"""Money helpers: the shop keeps every amount in whole cents."""

CURRENCY = "EUR"


def format_cents(cents: int) -> str:
    """Return cents as a display string, e.g. 1250 -> '12.50 EUR'."""
    sign = "-" if cents < 0 else ""
    whole, rest = divmod(abs(cents), 100)
    return f"{sign}{whole}.{rest:02d} {CURRENCY}"


def parse_amount(text: str) -> int:
    """Return the cents of a typed amount such as '12.5' or '12,50 EUR'."""
    cleaned = text.replace(CURRENCY, "").strip().replace(",", ".")
    whole, _, frac = cleaned.partition(".")
    frac = (frac + "00")[:2]
    sign = -1 if whole.startswith("-") else 1
    return sign * (abs(int(whole or "0")) * 100 + int(frac))
