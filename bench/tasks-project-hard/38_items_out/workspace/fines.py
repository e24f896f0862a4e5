"""Overdue fines of the library (amounts in cents)."""

FINE_PER_DAY_CENTS = 25
MAX_FINE_CENTS = 1000


def overdue_fine(days_late: int) -> int:
    """Return the fine for an item returned days_late days after its due date.

    The fine grows by a fixed amount per day and is capped.
    """
    if days_late <= 0:
        return 0
    return min(days_late * FINE_PER_DAY_CENTS, MAX_FINE_CENTS)
