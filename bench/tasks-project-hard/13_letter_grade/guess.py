"""Best guess without the project: the usual 90/80/70/60 scale."""


def letter_grade(points: float, max_points: float) -> str:
    """Return the letter grade for points out of max_points."""
    percent = points / max_points * 100
    for letter, minimum in (("A", 90), ("B", 80), ("C", 70), ("D", 60)):
        if percent >= minimum:
            return letter
    return "F"
