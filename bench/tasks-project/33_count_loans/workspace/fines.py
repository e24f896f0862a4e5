"""Overdue fines of the library."""

FINE_PER_DAY_CENTS = 25
MAX_FINE_CENTS = 1000


def fine_cents(days_late: int) -> int:
    """Return the fine in cents for an item returned days_late days after its due date.

    The fine grows by a fixed amount per day and never exceeds the maximum.
    """
    if days_late <= 0:
        return 0
    return min(days_late * FINE_PER_DAY_CENTS, MAX_FINE_CENTS)
