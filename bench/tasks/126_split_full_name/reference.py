def split_full_name(full_name: str) -> tuple[str, str]:
    """The first word and the other words joined by single spaces."""
    words = full_name.split()
    if not words:
        return ("", "")
    return (words[0], " ".join(words[1:]))
