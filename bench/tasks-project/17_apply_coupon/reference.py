"""Reference solution: apply a coupon from the coupon list."""

import json


def apply_coupon(total_cents: int, code: str) -> int:
    """Return the total in cents after the coupon's discount."""
    with open("promo/coupons.json", encoding="utf-8") as fh:
        coupons = json.load(fh)["coupons"]
    for coupon in coupons:
        if coupon["code"] == code:
            return round(total_cents * (100 - coupon["percent_off"]) / 100)
    return total_cents
