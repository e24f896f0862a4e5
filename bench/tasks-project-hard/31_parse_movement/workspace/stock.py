"""Reorder point and safety stock helpers for the depot."""

import math


def safety_stock(daily_demand: float, lead_time_days: int, service_factor: float = 1.65) -> int:
    """Return the safety stock in units for a steady daily demand.

    Args:
        daily_demand: Average units picked per day.
        lead_time_days: Days between ordering and receiving.
        service_factor: Z value of the wanted service level.

    Returns:
        The safety stock, rounded up to whole units.
    """
    return math.ceil(service_factor * math.sqrt(lead_time_days) * daily_demand * 0.3)


def reorder_point(daily_demand: float, lead_time_days: int) -> int:
    """Return the stock level at which a new order must be placed."""
    return math.ceil(daily_demand * lead_time_days) + safety_stock(daily_demand, lead_time_days)


def needs_reorder(on_hand: int, daily_demand: float, lead_time_days: int) -> bool:
    """Tell whether the stock on hand has reached the reorder point."""
    return on_hand <= reorder_point(daily_demand, lead_time_days)
