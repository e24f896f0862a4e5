def count_log_level(lines: list[str], level: str) -> int:
    """How many lines have ``level`` as their first word, ignoring case."""
    wanted = level.upper()
    count = 0
    for line in lines:
        words = line.split()
        if words and words[0].upper() == wanted:
            count += 1
    return count
