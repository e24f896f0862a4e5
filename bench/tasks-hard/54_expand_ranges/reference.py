def expand_ranges(text: str) -> list[int]:
    """Expand "1-3, 7" style text into a sorted list of distinct ints."""
    numbers: set[int] = set()
    for raw in text.split(","):
        piece = raw.strip()
        if not piece:
            continue
        parts = piece.split("-")
        if len(parts) > 2 or not all(part.strip().isdigit() for part in parts):
            raise ValueError(f"bad piece: {piece!r}")
        values = [int(part) for part in parts]
        numbers.update(range(min(values), max(values) + 1))
    return sorted(numbers)
