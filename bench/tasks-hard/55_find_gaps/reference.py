def find_gaps(busy: list[tuple[int, int]], start: int, end: int) -> list[tuple[int, int]]:
    """Return the parts of [start, end) not covered by any busy range."""
    gaps: list[tuple[int, int]] = []
    cursor = start
    for low, high in sorted(busy):
        if high <= low:
            continue
        if low > cursor:
            gaps.append((cursor, min(low, end)))
        cursor = max(cursor, high)
        if cursor >= end:
            break
    if cursor < end:
        gaps.append((cursor, end))
    return [(a, b) for a, b in gaps if a < b]
