"""Rounding of billed weights and prices."""

import math

BILLING_STEP_KG = 0.5
MIN_BILLED_KG = 1.0


def ceil_billing_step(kg: float) -> float:
    """Round a weight up to the next billing step, and never below the minimum.

    Args:
        kg: A weight in kilograms.

    Returns:
        The billed weight: a multiple of :data:`BILLING_STEP_KG`, at least
        :data:`MIN_BILLED_KG`.
    """
    steps = math.ceil(round(kg / BILLING_STEP_KG, 9))
    return max(MIN_BILLED_KG, steps * BILLING_STEP_KG)


def price_rappen(billed_kg: float, rate_per_kg_rappen: int, base_rappen: int) -> int:
    """Return the price of a parcel in Rappen."""
    return base_rappen + round(billed_kg * rate_per_kg_rappen)
