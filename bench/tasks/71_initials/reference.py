def initials(name: str) -> str:
    """Return the uppercase first characters of the words of name."""
    return "".join(word[0].upper() for word in name.split())
