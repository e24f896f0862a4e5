"""Watering helpers for the greenhouse beds."""

LITRES_PER_SQUARE_METRE = 4.5


def litres_needed(moisture_percent: float, bed_square_metres: float) -> float:
    """Return the litres of water a bed needs to get back to 60 % soil moisture.

    Args:
        moisture_percent: The soil moisture the bed sensor reports.
        bed_square_metres: The size of the bed.

    Returns:
        The litres to give, 0.0 when the bed is wet enough.
    """
    missing = max(0.0, 60.0 - moisture_percent) / 60.0
    return round(missing * LITRES_PER_SQUARE_METRE * bed_square_metres, 1)


def needs_water(moisture_percent: float) -> bool:
    """Tell whether a bed is dry enough to be watered today."""
    return moisture_percent < 45.0
