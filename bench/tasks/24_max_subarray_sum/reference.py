def max_subarray_sum(numbers: list[int]) -> int:
    """Return the largest sum of a contiguous non-empty run of numbers (0 if empty)."""
    if not numbers:
        return 0
    best = current = numbers[0]
    for number in numbers[1:]:
        current = max(number, current + number)
        best = max(best, current)
    return best
