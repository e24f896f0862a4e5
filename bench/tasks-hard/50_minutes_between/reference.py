def minutes_between(start: int, end: int) -> int:
    """Return the minutes forward from start to end, both HHMM clock times."""
    start_minutes = start // 100 * 60 + start % 100
    end_minutes = end // 100 * 60 + end % 100
    return (end_minutes - start_minutes) % (24 * 60)
