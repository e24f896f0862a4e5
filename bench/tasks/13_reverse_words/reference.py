def reverse_words(sentence: str) -> str:
    """Return the words of sentence in reverse order."""
    return " ".join(reversed(sentence.split()))
