"""Due dates and overdue fees for loans."""

from datetime import date, timedelta

LOAN_DAYS = {"book": 28, "dvd": 7, "magazine": 14}
FEE_PER_DAY_CENTS = 50
FEE_CAP_CENTS = 1500


def due_date(lent_on: date, medium: str) -> date:
    """Return the date a medium lent on ``lent_on`` must be back."""
    return lent_on + timedelta(days=LOAN_DAYS.get(medium, 28))


def overdue_fee_cents(due: date, returned: date) -> int:
    """Return the fee for a late return in cents, capped per item."""
    late_days = (returned - due).days
    if late_days <= 0:
        return 0
    return min(late_days * FEE_PER_DAY_CENTS, FEE_CAP_CENTS)
