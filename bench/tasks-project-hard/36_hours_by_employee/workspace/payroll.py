"""Overtime rules for the workshop's payroll."""

WEEKLY_HOURS = 38.5
OVERTIME_FACTOR = 1.25


def overtime_hours(worked_hours: float, weekly_hours: float = WEEKLY_HOURS) -> float:
    """Return the hours of a week that are paid as overtime."""
    return max(0.0, worked_hours - weekly_hours)


def paid_hours(worked_hours: float) -> float:
    """Return the hours paid for a week, overtime weighted by its factor."""
    extra = overtime_hours(worked_hours)
    return worked_hours - extra + extra * OVERTIME_FACTOR
