def grade_letter(score: float) -> str:
    """Return the letter grade A-F for a score from 0 to 100."""
    if score < 0 or score > 100:
        raise ValueError("score must be from 0 to 100")
    for limit, letter in ((90, "A"), (80, "B"), (70, "C"), (60, "D")):
        if score >= limit:
            return letter
    return "F"
