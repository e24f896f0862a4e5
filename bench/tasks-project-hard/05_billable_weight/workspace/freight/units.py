"""Unit conversions used in pricing."""

KG_PER_LB = 0.45359237
CM_PER_INCH = 2.54
VOLUMETRIC_DIVISOR = 4000
"""Cubic centimetres per volumetric kilogram (our contract with the hub, not IATA's 6000)."""


def lb_to_kg(pounds: float) -> float:
    """Convert pounds to kilograms."""
    return pounds * KG_PER_LB


def inch_to_cm(inches: float) -> float:
    """Convert inches to centimetres."""
    return inches * CM_PER_INCH
