"""Timesheets: add up the hours an employee logged in a week."""

from datetime import datetime


def shift_hours(start: str, end: str) -> float:
    """Return the hours between two 'HH:MM' times on the same day."""
    fmt = "%H:%M"
    delta = datetime.strptime(end, fmt) - datetime.strptime(start, fmt)
    return delta.total_seconds() / 3600


def week_hours(shifts: list[tuple[str, str]]) -> float:
    """Return the total hours of a week's (start, end) shifts."""
    return round(sum(shift_hours(start, end) for start, end in shifts), 2)
