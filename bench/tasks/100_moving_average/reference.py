def moving_average(values: list[float], window: int) -> list[float]:
    """Return the mean of every full window of consecutive values."""
    if window < 1:
        raise ValueError("window must be at least 1")
    return [
        sum(values[start : start + window]) / window for start in range(len(values) - window + 1)
    ]
