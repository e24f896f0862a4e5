"""Reference solution: order line total with the regular volume discounts."""

import csv
from decimal import ROUND_HALF_UP, Decimal


def order_total(unit_price_cents: int, qty: int) -> int:
    """Return the discounted total in cents for qty items."""
    percent = Decimal(0)
    with open("pricing/volume_discounts.csv", newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            if qty >= int(row["min_qty"]):
                percent = Decimal(row["percent_off"])
    total = Decimal(unit_price_cents * qty) * (100 - percent) / 100
    return int(total.quantize(Decimal(1), rounding=ROUND_HALF_UP))
