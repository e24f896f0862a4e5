def format_amount(cents: int) -> str:
    """Return cents formatted as a dollar amount like "-$1,234.56"."""
    sign = "-" if cents < 0 else ""
    dollars, rest = divmod(abs(cents), 100)
    return f"{sign}${dollars:,}.{rest:02d}"
