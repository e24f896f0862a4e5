"""Loan periods and due dates."""

from datetime import date, timedelta

LOAN_DAYS = {"book": 28, "dvd": 7, "magazine": 14}


def due_date(kind: str, lent_on: date) -> date:
    """Return the day a medium of the given kind is due back."""
    return lent_on + timedelta(days=LOAN_DAYS[kind])


def days_late(due: date, returned: date) -> int:
    """Return how many days after its due date a medium came back (0 if on time)."""
    return max((returned - due).days, 0)
