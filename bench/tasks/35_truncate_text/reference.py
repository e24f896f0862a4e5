def truncate_text(text: str, width: int) -> str:
    """Return text cut to at most width characters, ending in "..." when cut."""
    if width < 3:
        raise ValueError("width must be at least 3")
    if len(text) <= width:
        return text
    return text[: width - 3].rstrip(" ") + "..."
