def weekly_pay(hours: list[float], rate: float) -> float:
    """The week's pay: daily overtime past 8 hours at 1.5x, Sunday at 2x."""
    if len(hours) != 7:
        raise ValueError("hours needs seven entries")
    if any(day < 0 or day > 24 for day in hours):
        raise ValueError("a day has from 0 to 24 hours")
    total = 0.0
    for day in hours[:6]:
        total += min(day, 8) * rate + max(day - 8, 0) * rate * 1.5
    total += hours[6] * rate * 2
    return round(total, 2)
