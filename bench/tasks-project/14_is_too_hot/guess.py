"""Best guess without the project: a usual 30 degree limit for every sensor."""

MAX_CELSIUS = 30.0


def is_too_hot(sensor_id: str, celsius: float) -> bool:
    """Return True if the reading is above the sensor's upper limit."""
    return celsius > MAX_CELSIUS
