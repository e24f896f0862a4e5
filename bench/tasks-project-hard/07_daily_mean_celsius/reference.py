"""Reference solution: mean daily temperature from raw counts."""

from sensors.calib import adc_to_celsius, is_fault


def daily_mean_celsius(raw_readings: list[int]) -> float | None:
    """Return the mean temperature in degrees Celsius, or None without valid readings."""
    values = [adc_to_celsius(raw) for raw in raw_readings if not is_fault(raw)]
    if not values:
        return None
    return round(sum(values) / len(values), 2)
