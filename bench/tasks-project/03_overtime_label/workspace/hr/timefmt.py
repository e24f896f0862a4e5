"""How durations and dates are written on the time sheets."""

from datetime import date


def fmt_signed_duration(minutes: int) -> str:
    """Write a signed number of minutes as on the time sheet, e.g. ``+2h05`` or ``-0h30``."""
    sign = "-" if minutes < 0 else "+"
    hours, rest = divmod(abs(minutes), 60)
    return f"{sign}{hours}h{rest:02d}"


def fmt_sheet_date(day: date) -> str:
    """Write a date as in the time sheet header, e.g. ``KW 07 / 2025``."""
    year, week, _ = day.isocalendar()
    return f"KW {week:02d} / {year}"
