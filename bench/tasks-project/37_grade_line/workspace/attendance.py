"""Absence helpers of the school office."""

WARNING_DAYS = 10


def absence_rate(days_absent: int, school_days: int) -> float:
    """Return the share of school days a student missed, as a percentage with 1 decimal."""
    if school_days <= 0:
        return 0.0
    return round(100 * days_absent / school_days, 1)


def needs_letter(days_absent: int) -> bool:
    """Tell whether the parents get a letter about the absences."""
    return days_absent >= WARNING_DAYS
