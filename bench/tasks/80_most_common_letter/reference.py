import string


def most_common_letter(text: str) -> str | None:
    """Return the most frequent letter in lowercase; ties go to the earliest letter."""
    lowered = text.lower()
    counts = {letter: lowered.count(letter) for letter in string.ascii_lowercase}
    best = max(counts.values())
    if best == 0:
        return None
    return min(letter for letter, count in counts.items() if count == best)
