def second_largest(numbers: list[int]) -> int | None:
    """Return the second largest distinct value, or None."""
    distinct = sorted(set(numbers), reverse=True)
    if len(distinct) < 2:
        return None
    return distinct[1]
