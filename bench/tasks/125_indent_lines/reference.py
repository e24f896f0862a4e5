def indent_lines(text: str, spaces: int) -> str:
    """``text`` with ``spaces`` spaces before each line that is not blank."""
    pad = " " * spaces
    return "\n".join(pad + line if line.strip() else line for line in text.split("\n"))
