"""Grading scale: the linear Swiss scale, rounded to half grades."""

from decimal import ROUND_HALF_UP, Decimal

LOWEST_GRADE = 1
HIGHEST_GRADE = 6


def round_half_grade(grade: float) -> float:
    """Round a grade to the nearest half grade, halves (x.25, x.75) up."""
    doubled = (Decimal(str(grade)) * 2).quantize(Decimal("1"), rounding=ROUND_HALF_UP)
    return float(doubled / 2)


def grade_from_points(points: float, max_points: float) -> float:
    """Return the grade of an exam score.

    The grade is ``1 + 5 * points / max_points`` (all points give a 6, none a 1),
    rounded with :func:`round_half_grade`.

    Args:
        points: Points scored.
        max_points: The exam's maximum.

    Returns:
        The grade, a multiple of 0.5 between 1 and 6.
    """
    raw = LOWEST_GRADE + (HIGHEST_GRADE - LOWEST_GRADE) * points / max_points
    return round_half_grade(min(max(raw, LOWEST_GRADE), HIGHEST_GRADE))
