def longest_run(items: list) -> tuple | None:
    """Return (value, length) of the first longest run of equal adjacent items, or None."""
    best = None
    length = 0
    for index, item in enumerate(items):
        length = length + 1 if index > 0 and item == items[index - 1] else 1
        if best is None or length > best[1]:
            best = (item, length)
    return best
