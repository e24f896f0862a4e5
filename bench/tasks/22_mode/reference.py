def mode(numbers: list[int]) -> int | None:
    """Return the most common value (smallest on ties), or None for an empty list."""
    if not numbers:
        return None
    counts: dict[int, int] = {}
    for number in numbers:
        counts[number] = counts.get(number, 0) + 1
    highest = max(counts.values())
    return min(number for number, count in counts.items() if count == highest)
