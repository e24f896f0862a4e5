"""Reference solution: billed weight of a parcel."""

from freight.billing import ceil_billing_step
from freight.units import VOLUMETRIC_DIVISOR


def billable_weight(length_cm: float, width_cm: float, height_cm: float, actual_kg: float) -> float:
    """Return the billed weight in kg."""
    volumetric = length_cm * width_cm * height_cm / VOLUMETRIC_DIVISOR
    return ceil_billing_step(max(actual_kg, volumetric))
