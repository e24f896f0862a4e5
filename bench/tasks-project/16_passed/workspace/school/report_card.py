"""Format a pupil's report card."""


def card_lines(pupil: str, scores: dict[str, int]) -> list[str]:
    """Return the card's lines: the pupil's name, then one 'course: score' line per course."""
    lines = [f"Report card of {pupil}"]
    lines.extend(f"{course}: {score}" for course, score in sorted(scores.items()))
    return lines
