"""The grading scale of the school: grades from 1 (worst) to 6 (best)."""

import math

PASS_GRADE = 4.0


def points_to_grade(points: float, max_points: float) -> float:
    """Return the grade for a score: 5 * points / max_points + 1, to the nearest half grade."""
    raw = 5 * points / max_points + 1
    return math.floor(raw * 2 + 0.5) / 2


def has_passed(grade: float) -> bool:
    """Whether a grade is a pass."""
    return grade >= PASS_GRADE
