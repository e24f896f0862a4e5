"""Best guess without the project: 40-hour week, 25 euro per overtime hour."""

WEEKLY_HOURS = 40
OVERTIME_RATE_CENTS = 2500


def overtime_pay_cents(hours_worked: int) -> int:
    """Return the overtime pay in cents for one week."""
    return max(0, hours_worked - WEEKLY_HOURS) * OVERTIME_RATE_CENTS
