def last_lines(text: str, count: int) -> list[str]:
    """The last ``count`` lines of ``text``, without their newlines."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # the final newline ends the last line
    if count <= 0:
        return []
    return lines[-count:]
