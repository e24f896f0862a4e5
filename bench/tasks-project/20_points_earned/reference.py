"""Reference solution: loyalty points of a purchase."""

import tomllib


def points_earned(amount_cents: int, level: str) -> int:
    """Return the points a purchase earns for a member of a level."""
    with open("loyalty.toml", "rb") as fh:
        config = tomllib.load(fh)
    steps = amount_cents // config["earning"]["cents_per_point"]
    return steps * config["levels"][level]["multiplier"]
