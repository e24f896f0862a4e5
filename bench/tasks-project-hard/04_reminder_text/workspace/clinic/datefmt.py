"""How dates and times are written for patients (Swiss German conventions)."""

from datetime import date, datetime

WEEKDAYS_DE = ("Mo", "Di", "Mi", "Do", "Fr", "Sa", "So")


def visit_stamp(moment: datetime) -> str:
    """Return an appointment's date and time as patients read it.

    Short weekday, day.month.year and the time with a dot, e.g. ``Di 04.03.2025, 14.30 Uhr``.

    Args:
        moment: The appointment start.

    Returns:
        The formatted date and time.
    """
    weekday = WEEKDAYS_DE[moment.weekday()]
    return f"{weekday} {moment:%d.%m.%Y}, {moment:%H.%M} Uhr"


def birth_date(day: date) -> str:
    """Return a birth date as written on forms, e.g. ``07.11.1984``."""
    return f"{day:%d.%m.%Y}"
