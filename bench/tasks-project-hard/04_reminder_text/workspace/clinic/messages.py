"""Texts sent to patients. Placeholders are filled with :meth:`str.format`."""

REMINDER_SMS_DE = (
    "Praxis Dr. Haller: Ihr Termin ist am {when}. "
    "Absagen bitte bis 24 h vorher unter 052 555 12 12. Ref. {ref}"
)
"""Reminder sent the day before; ``when`` is written with ``datefmt.visit_stamp``."""

CANCEL_SMS_DE = "Praxis Dr. Haller: Ihr Termin vom {when} ist abgesagt. Ref. {ref}"

RESULTS_MAIL_SUBJECT = "Ihre Laborresultate sind da"

SMS_MAX_CHARS = 160
