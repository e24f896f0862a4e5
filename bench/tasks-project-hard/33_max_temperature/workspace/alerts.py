"""Battery alerts for the greenhouse sensors."""

LOW_BATTERY_MV = 2750


def battery_low(millivolts: int, threshold: int = LOW_BATTERY_MV) -> bool:
    """Tell whether a sensor's battery voltage is below the alert threshold."""
    return millivolts < threshold


def alert_text(device: str, millivolts: int) -> str:
    """Return the text of the alert sent for a sensor with a low battery."""
    return f"Sensor {device}: battery at {millivolts / 1000:.2f} V, please replace"
