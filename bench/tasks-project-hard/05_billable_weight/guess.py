"""Best guess without the project: divisor 5000, up to the next 0.5 kg."""

import math


def billable_weight(length_cm: float, width_cm: float, height_cm: float, actual_kg: float) -> float:
    """Return the billed weight in kg."""
    volumetric = length_cm * width_cm * height_cm / 5000
    return math.ceil(max(actual_kg, volumetric) * 2) / 2
