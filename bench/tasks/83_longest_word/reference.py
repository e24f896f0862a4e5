def longest_word(text: str) -> str:
    """Return the first of the longest whitespace-separated words, or ""."""
    best = ""
    for word in text.split():
        if len(word) > len(best):
            best = word
    return best
