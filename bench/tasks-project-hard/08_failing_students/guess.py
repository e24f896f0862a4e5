"""Best guess without the project: fail below half of the points."""


def failing_students(points: dict[str, float], max_points: int) -> list[str]:
    """Return the sorted names of the students whose grade is below the pass mark."""
    return sorted(name for name, score in points.items() if score / max_points < 0.5)
