"""Best guess without the project: a 40-hour week and time and a half."""

from decimal import ROUND_HALF_UP, Decimal

STANDARD_HOURS = Decimal(40)
OVERTIME_FACTOR = Decimal("1.5")


def weekly_pay(hourly_rate_cents: int, hours: float) -> int:
    """Return one week's gross pay in cents for a full-time employee."""
    worked = Decimal(str(hours))
    rate = Decimal(hourly_rate_cents)
    regular = min(worked, STANDARD_HOURS)
    extra = max(worked - STANDARD_HOURS, Decimal(0))
    pay = regular * rate + extra * rate * OVERTIME_FACTOR
    return int(pay.quantize(Decimal(1), rounding=ROUND_HALF_UP))
