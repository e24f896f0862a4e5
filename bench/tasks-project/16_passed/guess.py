"""Best guess without the project: pass from 60, the same for every course."""

PASS_MARK = 60


def passed(course: str, score: int) -> bool:
    """Return True if the score reaches the course's pass mark."""
    return score >= PASS_MARK
