"""Best guess without the project: usual room rates and a 2.50 euro city tax."""

NIGHTLY_CENTS = {"single": 7500, "double": 9900, "family": 14900, "suite": 19900}
CITY_TAX_CENTS = 250


def stay_price_cents(room_type: str, nights: int) -> int:
    """Return the price of a stay in cents."""
    return (NIGHTLY_CENTS[room_type] + CITY_TAX_CENTS) * nights
