"""Reference solution: shipping fee from the current shipping config."""

import math
import tomllib


def shipping_cost(weight_kg: float, zone: str, order_total_cents: int) -> int:
    """Return the shipping fee in cents for a parcel to a zone."""
    with open("config/shipping.toml", "rb") as fh:
        config = tomllib.load(fh)
    zones = config["zones"]
    if zone not in zones:
        raise ValueError(f"unknown zone: {zone}")
    checkout = config["checkout"]
    if zone in checkout["free_zones"] and order_total_cents >= checkout["free_above_cents"]:
        return 0
    rate = zones[zone]
    return rate["base_cents"] + math.ceil(weight_kg) * rate["per_kg_cents"]
