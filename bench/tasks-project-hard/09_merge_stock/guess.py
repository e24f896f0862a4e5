"""Best guess without the project: upper case, no separators, no leading zeros."""

import re


def merge_stock(counts: list[tuple[str, int]]) -> dict[str, int]:
    """Return the total quantity per canonical article number."""
    totals: dict[str, int] = {}
    for sku, quantity in counts:
        compact = re.sub(r"[\s\-_/.]", "", sku).upper()
        match = re.fullmatch(r"([A-Z]+)0*(\d+)", compact)
        key = f"{match.group(1)}-{int(match.group(2))}" if match else compact
        totals[key] = totals.get(key, 0) + quantity
    return totals
