def count_vowels(text: str) -> int:
    """Count the vowels a, e, i, o, u in text, ignoring case."""
    return sum(1 for char in text.lower() if char in "aeiou")
