import re

AMOUNT = re.compile(r"(-?)\$?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?", re.ASCII)


def parse_money(text: str) -> int:
    """The amount in cents; ValueError unless it is [-][$]dollars[.cents]."""
    match = AMOUNT.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"not an amount: {text!r}")
    sign, dollars, cents = match.groups()
    total = int(dollars.replace(",", "")) * 100 + int((cents or "0").ljust(2, "0"))
    return -total if sign else total
