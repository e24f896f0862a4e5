"""Best guess without the project: a plain English reminder with an ISO-like stamp."""

from datetime import datetime


def reminder_text(patient_ref: str, when: datetime) -> str:
    """Return the reminder text message for an appointment."""
    return f"Reminder ({patient_ref}): your appointment is on {when:%d.%m.%Y} at {when:%H:%M}."
