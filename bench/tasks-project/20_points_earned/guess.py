"""Best guess without the project: one point per euro, usual level multipliers."""

CENTS_PER_POINT = 100
MULTIPLIERS = {"bronze": 1, "silver": 2, "gold": 3, "platinum": 4}


def points_earned(amount_cents: int, level: str) -> int:
    """Return the points a purchase earns for a member of a level."""
    return amount_cents // CENTS_PER_POINT * MULTIPLIERS[level]
