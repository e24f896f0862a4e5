"""Best guess without the project: three-week loans, 25 cents a day, 10 euro cap."""

from datetime import date

LOAN_DAYS = {"book": 21, "dvd": 7, "magazine": 7}
DAILY_CENTS = {"book": 25, "dvd": 100, "magazine": 10}
MAX_CENTS = 1000


def late_fee(item_type: str, borrowed: str, returned: str) -> int:
    """Return the late fine in cents for an item of item_type."""
    kept = (date.fromisoformat(returned) - date.fromisoformat(borrowed)).days
    days_late = kept - LOAN_DAYS.get(item_type, 21)
    if days_late <= 0:
        return 0
    return min(days_late * DAILY_CENTS.get(item_type, 25), MAX_CENTS)
