"""Reference solution: overtime pay from the payroll settings."""

import configparser


def overtime_pay_cents(hours_worked: int) -> int:
    """Return the overtime pay in cents for one week."""
    config = configparser.ConfigParser()
    config.read("hr/payroll.ini")
    extra = max(0, hours_worked - config.getint("contract", "hours_per_week"))
    return extra * config.getint("overtime", "hourly_cents")
