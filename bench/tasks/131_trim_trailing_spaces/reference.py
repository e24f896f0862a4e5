def trim_trailing_spaces(text: str) -> str:
    """``text`` with the spaces and tabs at the end of each line removed."""
    return "\n".join(line.rstrip(" \t") for line in text.split("\n"))
