"""Identifiers printed on patient cards, letters and lab forms."""

PATIENT_PREFIX = "PX"
CHECK_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"
LAB_PREFIX = "LAB"


def check_letter(number: int) -> str:
    """Return the check letter of a registration number (remainder modulo 23)."""
    return CHECK_LETTERS[number % 23]


def make_patient_id(number: int) -> str:
    """Return the patient ID of a registration number, e.g. ``PX-000042-L``."""
    return f"{PATIENT_PREFIX}-{number:06d}-{check_letter(number)}"


def make_lab_ref(year: int, sample: int) -> str:
    """Return the reference written on a lab sample form."""
    return f"{LAB_PREFIX}{year % 100:02d}/{sample:05d}"
