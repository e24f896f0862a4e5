def running_total(numbers: list[float]) -> list[float]:
    """Return the cumulative sums of numbers."""
    totals: list[float] = []
    total: float = 0
    for number in numbers:
        total += number
        totals.append(total)
    return totals
