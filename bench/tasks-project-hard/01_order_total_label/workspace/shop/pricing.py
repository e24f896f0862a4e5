"""Price helpers: cash rounding to 5 Rappen and the amount format of receipts."""

from decimal import ROUND_HALF_UP, Decimal

ROUNDING_STEP = Decimal("0.05")


def round_rappen(amount: float | Decimal) -> Decimal:
    """Round an amount in francs to the nearest 5 Rappen, halves away from zero.

    Args:
        amount: The amount in francs.

    Returns:
        The rounded amount with two decimal places.
    """
    value = Decimal(str(amount))
    steps = (value / ROUNDING_STEP).quantize(Decimal("1"), rounding=ROUND_HALF_UP)
    return (steps * ROUNDING_STEP).quantize(Decimal("0.01"))


def format_chf(amount: float | Decimal) -> str:
    """Format an amount the way receipts and invoices show it.

    The amount is rounded with :func:`round_rappen` and written with an apostrophe
    between thousands, e.g. ``CHF 1'234.55`` or ``-CHF 3.10``.

    Args:
        amount: The amount in francs.

    Returns:
        The display string.
    """
    value = round_rappen(amount)
    sign = "-" if value < 0 else ""
    whole, cents = f"{abs(value):.2f}".split(".")
    grouped = f"{int(whole):,}".replace(",", "'")
    return f"{sign}CHF {grouped}.{cents}"
