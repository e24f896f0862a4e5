"""Reference solution: weekly gross pay with full-time overtime rules."""

import configparser
from decimal import ROUND_HALF_UP, Decimal


def weekly_pay(hourly_rate_cents: int, hours: float) -> int:
    """Return one week's gross pay in cents for a full-time employee."""
    config = configparser.ConfigParser()
    config.read("hr/payroll.ini")
    section = config["contract:fulltime"]
    standard = Decimal(section["standard_week_hours"])
    factor = Decimal(section["overtime_multiplier"])
    worked = Decimal(str(hours))
    rate = Decimal(hourly_rate_cents)
    regular = min(worked, standard)
    extra = max(worked - standard, Decimal(0))
    pay = regular * rate + extra * rate * factor
    return int(pay.quantize(Decimal(1), rounding=ROUND_HALF_UP))
