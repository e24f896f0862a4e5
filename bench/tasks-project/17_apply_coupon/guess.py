"""Best guess without the project: some usual coupon codes."""

COUPONS = {"WELCOME10": 10, "SAVE10": 10, "SAVE20": 20, "SUMMER": 15, "STAFF": 25}


def apply_coupon(total_cents: int, code: str) -> int:
    """Return the total in cents after the coupon's discount."""
    percent = COUPONS.get(code.upper(), 0)
    return round(total_cents * (100 - percent) / 100)
