def merge_intervals(intervals: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Overlapping or touching closed intervals merged, sorted by start."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged
