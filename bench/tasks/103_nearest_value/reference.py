def nearest_value(values: list[float], target: float) -> float:
    """Return the value closest to target, the smaller one on a tie."""
    if not values:
        raise ValueError("values is empty")
    return min(values, key=lambda value: (abs(value - target), value))
