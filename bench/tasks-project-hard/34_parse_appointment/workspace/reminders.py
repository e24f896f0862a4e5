"""Reminder texts sent to patients the day before an appointment."""

PRACTICE = "Praxis am Markt"
PHONE = "040 1234 567"


def reminder_text(first_name: str, day: str, start: str) -> str:
    """Return the SMS text that reminds a patient of an appointment.

    Args:
        first_name: The patient's first name.
        day: The day as 'DD.MM.YYYY'.
        start: The start time as 'HH:MM'.

    Returns:
        The message, at most 160 characters for the usual names.
    """
    return (
        f"Hallo {first_name}, Ihr Termin im {PRACTICE} ist am {day} um {start}. "
        f"Absagen bitte unter {PHONE}."
    )
