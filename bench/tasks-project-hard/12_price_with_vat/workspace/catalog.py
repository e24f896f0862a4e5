"""Product catalog helpers: look up products and list them by category."""

import csv


def load_products(path: str = "products.csv") -> list[dict[str, str]]:
    """Return the products of the catalog file as dicts."""
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def by_category(products: list[dict[str, str]], category: str) -> list[dict[str, str]]:
    """Return the products of one category, sorted by name."""
    found = [p for p in products if p["category"] == category]
    return sorted(found, key=lambda p: p["name"])


def net_price_cents(product: dict[str, str]) -> int:
    """Return the product's net price in cents."""
    return int(product["net_cents"])
