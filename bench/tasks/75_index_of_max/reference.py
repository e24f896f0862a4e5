def index_of_max(numbers: list[float]) -> int | None:
    """Return the index of the first largest number, or None for an empty list."""
    if not numbers:
        return None
    best = 0
    for index, number in enumerate(numbers):
        if number > numbers[best]:
            best = index
    return best
