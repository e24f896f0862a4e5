def word_count(text: str) -> dict[str, int]:
    """Count the lowercase whitespace-separated words of text."""
    counts: dict[str, int] = {}
    for word in text.lower().split():
        counts[word] = counts.get(word, 0) + 1
    return counts
