"""Appointment slots from the practice's opening hours."""

import configparser
from datetime import date, datetime, timedelta

HOURS_FILE = "opening_hours.ini"


def _section(day: date) -> str:
    """Return the opening-hours section that applies to a day."""
    if day.weekday() == 6:
        return "sunday"
    if day.weekday() == 5:
        return "saturday"
    return "weekday"


def day_slots(day: date, path: str = HOURS_FILE) -> list[str]:
    """Return the start times ('HH:MM') of the day's appointment slots."""
    hours = configparser.ConfigParser()
    hours.read(path)
    section = hours[_section(day)]
    if section.getboolean("closed", fallback=False):
        return []
    start = datetime.combine(day, datetime.strptime(section["open"], "%H:%M").time())
    end = datetime.combine(day, datetime.strptime(section["close"], "%H:%M").time())
    step = timedelta(minutes=section.getint("slot_minutes"))
    slots = []
    while start + step <= end:
        slots.append(start.strftime("%H:%M"))
        start += step
    return slots
