"""Reference solution: invoice total of a list of time entries."""

from timesheet.billing import billable_minutes
from timesheet.rates import HOURLY_RATES_CENTS


def invoice_total_cents(entries: list[tuple[str, int]]) -> int:
    """Return the invoice total in cents."""
    total = 0
    for role, minutes in entries:
        total += billable_minutes(minutes) * HOURLY_RATES_CENTS[role] // 60
    return total
