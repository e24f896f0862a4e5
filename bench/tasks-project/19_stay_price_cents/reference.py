"""Reference solution: price of a stay from the room config."""

import json


def stay_price_cents(room_type: str, nights: int) -> int:
    """Return the price of a stay in cents."""
    with open("config/rooms.json", encoding="utf-8") as fh:
        config = json.load(fh)
    nightly = config["rooms"][room_type]["nightly_cents"]
    return (nightly + config["tourist_levy_cents"]) * nights
