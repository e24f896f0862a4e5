def next_id(used_ids: list[int]) -> int:
    """One above the largest id in use; 1 when there is none."""
    return max(used_ids, default=0) + 1
