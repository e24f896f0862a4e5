def clamp(value: float, low: float, high: float) -> float:
    """Limit value to the range low..high."""
    if low > high:
        raise ValueError("low must not be greater than high")
    if value < low:
        return low
    if value > high:
        return high
    return value
