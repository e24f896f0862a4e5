"""Reference solution: member limit of a subscription plan."""

import json


def member_limit(plan: str) -> int:
    """Return the maximum number of members for a plan."""
    with open("config/tiers.json", encoding="utf-8") as fh:
        config = json.load(fh)
    return config["tiers"][plan]["max_members"]
