DAY = 1440
DAILY_CAP = 1800
HOURLY = 250


def parking_fee(minutes: int) -> int:
    """The fee in cents: free up to 30 minutes, then per day and per started hour."""
    if minutes < 0:
        raise ValueError("minutes must not be negative")
    if minutes <= 30:
        return 0
    days, rest = divmod(minutes, DAY)
    started_hours = -(-rest // 60)
    return days * DAILY_CAP + min(started_hours * HOURLY, DAILY_CAP)
