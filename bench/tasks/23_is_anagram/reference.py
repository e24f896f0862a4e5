def is_anagram(first: str, second: str) -> bool:
    """Return True if first and second are anagrams, ignoring case and spaces."""

    def letters(text: str) -> list[str]:
        return sorted(text.lower().replace(" ", ""))

    return letters(first) == letters(second)
