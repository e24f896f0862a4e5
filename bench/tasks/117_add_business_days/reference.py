from datetime import date, timedelta


def add_business_days(start: str, days: int, holidays: list[str]) -> str:
    """The date days business days (Monday to Friday, not a holiday) after start."""
    if days < 1:
        raise ValueError("days must be at least 1")
    closed = set(holidays)
    day = date.fromisoformat(start)
    while days:
        day += timedelta(days=1)
        if day.weekday() < 5 and day.isoformat() not in closed:
            days -= 1
    return day.isoformat()
