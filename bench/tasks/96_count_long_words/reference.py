def count_long_words(text: str, n: int) -> list[int]:
    """Count, line by line, the words longer than n characters."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [sum(1 for word in line.split() if len(word) > n) for line in lines]
