"""Decoding of the probe frames."""

RAW_SCALE = 0.0625  # degrees per count
RAW_OFFSET_C = -55.0  # degrees at count 0


def decode_temp(raw: int) -> float:
    """Convert a raw count of the temperature probe into degrees Celsius (2 decimals)."""
    return round(raw * RAW_SCALE + RAW_OFFSET_C, 2)


def decode_humidity(raw: int) -> float:
    """Convert a raw count of the humidity probe into percent relative humidity."""
    return round(raw * 100 / 4095, 1)
