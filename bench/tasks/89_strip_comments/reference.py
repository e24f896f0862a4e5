def strip_comments(code: str) -> str:
    """Cut each line at its first "#" and drop the spaces left at its end."""
    lines = []
    for line in code.split("\n"):
        if "#" in line:
            line = line[: line.index("#")].rstrip(" ")
        lines.append(line)
    return "\n".join(lines)
