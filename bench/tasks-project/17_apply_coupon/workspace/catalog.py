"""Product lookup and price display."""

PRODUCTS = {
    "NB-A5": ("Notebook A5, dotted", 695),
    "PEN-BLK": ("Gel pen, black", 189),
    "CLIP-100": ("Paper clips, box of 100", 249),
}


def price_label(sku: str) -> str:
    """Return a product's name and price, e.g. 'Gel pen, black: EUR 1.89'."""
    name, cents = PRODUCTS[sku]
    return f"{name}: EUR {cents // 100}.{cents % 100:02d}"
