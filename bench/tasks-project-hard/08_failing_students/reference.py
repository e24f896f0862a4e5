"""Reference solution: students below the pass mark."""

from grades.rules import PASS_MARK
from grades.scale import grade_from_points


def failing_students(points: dict[str, float], max_points: int) -> list[str]:
    """Return the sorted names of the students whose grade is below the pass mark."""
    return sorted(
        name for name, score in points.items() if grade_from_points(score, max_points) < PASS_MARK
    )
