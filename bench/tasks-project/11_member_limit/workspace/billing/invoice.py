"""Monthly invoice lines for a workspace."""


def invoice_line(workspace: str, plan: str, monthly_cents: int) -> str:
    """Return one printable invoice line, e.g. 'acme (team): 29.00 EUR'."""
    euros, cents = divmod(monthly_cents, 100)
    return f"{workspace} ({plan}): {euros}.{cents:02d} EUR"


def yearly_cents(monthly_cents: int, months_free: int = 2) -> int:
    """Return the price of a yearly subscription with some months free."""
    return monthly_cents * (12 - months_free)
