def covered_length(ranges: list[tuple[int, int]]) -> int:
    """Return the length of the union of half-open integer ranges."""
    total = 0
    reach: int | None = None
    for start, end in sorted(r for r in ranges if r[1] > r[0]):
        if reach is None or start >= reach:
            total += end - start
            reach = end
        elif end > reach:
            total += end - reach
            reach = end
    return total
