"""Absence counts for the report cards."""


def absent_days(records: list[tuple[str, str]]) -> dict[str, int]:
    """Count the days each student was absent.

    Args:
        records: (student id, mark) pairs, one per student and school day;
            the mark is "P" (present), "A" (absent) or "E" (excused).

    Returns:
        Student id to number of days absent, excused days included.
    """
    counts: dict[str, int] = {}
    for student, mark in records:
        if mark in ("A", "E"):
            counts[student] = counts.get(student, 0) + 1
    return counts
