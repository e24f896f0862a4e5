"""Best guess without the project: tenths of a degree, negatives mark faults."""


def daily_mean_celsius(raw_readings: list[int]) -> float | None:
    """Return the mean temperature in degrees Celsius, or None without valid readings."""
    values = [raw / 10 for raw in raw_readings if raw >= 0]
    if not values:
        return None
    return round(sum(values) / len(values), 2)
