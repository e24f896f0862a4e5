"""Reference solution: delivery fee from the delivery config."""

import tomllib


def delivery_fee_cents(order_cents: int) -> int:
    """Return the delivery fee in cents for an order total."""
    with open("config/delivery.toml", "rb") as fh:
        delivery = tomllib.load(fh)["delivery"]
    if order_cents >= delivery["free_from_cents"]:
        return 0
    return delivery["flat_fee_cents"]
