def overlap_minutes(start_a: int, end_a: int, start_b: int, end_b: int) -> int:
    """The minutes from the later start to the earlier end, at least 0."""
    return max(0, min(end_a, end_b) - max(start_a, start_b))
