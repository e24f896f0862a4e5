"""Reference solution: merge stocktake counts by canonical article number."""

from wms.sku import canonical_sku


def merge_stock(counts: list[tuple[str, int]]) -> dict[str, int]:
    """Return the total quantity per canonical article number."""
    totals: dict[str, int] = {}
    for sku, quantity in counts:
        key = canonical_sku(sku)
        totals[key] = totals.get(key, 0) + quantity
    return totals
