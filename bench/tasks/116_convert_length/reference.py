METRES = {"mm": 0.001, "cm": 0.01, "m": 1, "km": 1000}


def convert_length(value: float, unit: str) -> float:
    """``value`` in metres, rounded to 3 decimal places."""
    key = unit.strip().lower()
    if key not in METRES:
        raise ValueError(f"unknown unit: {unit}")
    return float(round(value * METRES[key], 3))
