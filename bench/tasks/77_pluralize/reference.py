def pluralize(word: str, count: int) -> str:
    """Return "count word", with an "s" added to the word unless count is 1."""
    suffix = "" if count == 1 else "s"
    return f"{count} {word}{suffix}"
