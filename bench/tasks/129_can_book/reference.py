OPEN, CLOSE = 480, 1200


def can_book(bookings: list[tuple[int, int]], start: int, end: int, buffer: int) -> bool:
    """Whether start..end is inside opening hours and buffer minutes clear of every booking."""
    if not (start < end and start >= OPEN and end <= CLOSE):
        return False
    return all(end + buffer <= s or start >= e + buffer for s, e in bookings)
