"""Overtime and pay helpers of the HR office."""

WEEKLY_HOURS = 38.5
OVERTIME_FACTOR = 1.25


def overtime_hours(worked_hours: float) -> float:
    """Return the hours worked beyond the contract's weekly hours (0.0 if none)."""
    return max(0.0, worked_hours - WEEKLY_HOURS)


def weekly_pay_cents(worked_hours: float, hourly_cents: int) -> int:
    """Return the pay of one week in cents, with overtime paid at the overtime factor."""
    normal = min(worked_hours, WEEKLY_HOURS) * hourly_cents
    extra = overtime_hours(worked_hours) * hourly_cents * OVERTIME_FACTOR
    return round(normal + extra)
