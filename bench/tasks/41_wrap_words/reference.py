def wrap_words(text: str, width: int) -> list[str]:
    """Return the words of text wrapped greedily into lines of at most width characters."""
    lines: list[str] = []
    current = ""
    for word in text.split():
        if not current:
            current = word
        elif len(current) + 1 + len(word) <= width:
            current += " " + word
        else:
            lines.append(current)
            current = word
    if current:
        lines.append(current)
    return lines
