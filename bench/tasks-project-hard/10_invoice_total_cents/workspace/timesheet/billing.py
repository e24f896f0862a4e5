"""How recorded time becomes billable time (engagement terms, art. 4)."""

import math

BILLING_UNIT_MINUTES = 6
"""Time is billed in units of a tenth of an hour, always rounded up."""

MIN_ENTRY_MINUTES = 30
"""Every time entry is billed with at least half an hour."""


def billable_minutes(minutes: int) -> int:
    """Return the billable minutes of one time entry.

    Args:
        minutes: The minutes recorded.

    Returns:
        The minutes rounded up to whole billing units, at least :data:`MIN_ENTRY_MINUTES`.
    """
    units = math.ceil(minutes / BILLING_UNIT_MINUTES)
    return max(MIN_ENTRY_MINUTES, units * BILLING_UNIT_MINUTES)
