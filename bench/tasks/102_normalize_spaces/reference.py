import re


def normalize_spaces(text: str) -> str:
    """Collapse spaces and tabs in each line, strip the lines, and squeeze empty lines."""
    lines: list[str] = []
    for line in text.split("\n"):
        tidy = re.sub(r"[ \t]+", " ", line).strip(" ")
        if tidy or not lines or lines[-1]:
            lines.append(tidy)
    return "\n".join(lines)
