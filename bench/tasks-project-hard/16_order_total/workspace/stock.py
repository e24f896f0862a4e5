"""Stock levels: read the warehouse export and find items to reorder."""

import csv


def read_stock(path: str = "stock.csv") -> dict[str, int]:
    """Return the quantity on hand per SKU."""
    with open(path, newline="", encoding="utf-8") as fh:
        return {row["sku"]: int(row["on_hand"]) for row in csv.DictReader(fh)}


def to_reorder(stock: dict[str, int], minimum: int = 20) -> list[str]:
    """Return the SKUs whose stock is below minimum, sorted."""
    return sorted(sku for sku, qty in stock.items() if qty < minimum)
