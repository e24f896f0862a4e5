"""Reference solution: the reminder SMS of an appointment."""

from datetime import datetime

from clinic.datefmt import visit_stamp
from clinic.messages import REMINDER_SMS_DE


def reminder_text(patient_ref: str, when: datetime) -> str:
    """Return the reminder text message for an appointment."""
    return REMINDER_SMS_DE.format(when=visit_stamp(when), ref=patient_ref)
