"""Appointment reminders: build the text message sent the day before."""

from datetime import date

TEMPLATE = "Reminder: your appointment at {clinic} is on {day} at {time}."


def reminder_text(clinic: str, day: str, time: str) -> str:
    """Return the reminder message for an appointment on ISO date `day`."""
    pretty = date.fromisoformat(day).strftime("%A %d %B")
    return TEMPLATE.format(clinic=clinic, day=pretty, time=time)


def needs_reminder(appointment_day: str, today: str) -> bool:
    """Return True if today is the day before the appointment."""
    delta = date.fromisoformat(appointment_day) - date.fromisoformat(today)
    return delta.days == 1
