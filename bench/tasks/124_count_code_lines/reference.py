def count_code_lines(source: str) -> int:
    """The lines that are neither blank nor comment lines."""
    count = 0
    for line in source.split("\n"):
        stripped = line.strip(" \t")
        if stripped and not stripped.startswith("#"):
            count += 1
    return count
