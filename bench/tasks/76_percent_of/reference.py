def percent_of(part: float, whole: float) -> float:
    """Return part as a percentage of whole, rounded to one decimal place."""
    if whole == 0:
        raise ValueError("whole must not be 0")
    return round(part / whole * 100, 1)
