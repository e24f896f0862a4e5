"""Monthly budget categories and their limits, in cents."""

LIMITS_CENTS = {
    "food": 60000,
    "rent": 89000,
    "energy": 15000,
    "leisure": 20000,
}


def over_budget(category: str, spent_cents: int) -> bool:
    """Tell whether the money spent in a category this month is above its limit."""
    return spent_cents > LIMITS_CENTS.get(category, 0)


def left_cents(category: str, spent_cents: int) -> int:
    """Return how much of a category's limit is left this month (negative when over)."""
    return LIMITS_CENTS.get(category, 0) - spent_cents
