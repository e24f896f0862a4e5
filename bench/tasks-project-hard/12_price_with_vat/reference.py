"""Reference solution: gross price with the northern region's tax table."""

import json
from decimal import ROUND_HALF_UP, Decimal


def price_with_vat(net_cents: int, category: str) -> int:
    """Return net_cents plus the region's tax for the category, in whole cents."""
    with open("tax/region_north.json", encoding="utf-8") as fh:
        table = json.load(fh)
    band = table["category_band"].get(category, table["default_band"])
    rate = Decimal(str(table["bands"][band]))
    gross = Decimal(net_cents) * (1 + rate)
    return int(gross.quantize(Decimal(1), rounding=ROUND_HALF_UP))
