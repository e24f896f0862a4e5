"""Checks on a booking's dates."""

from datetime import date


def nights_between(arrival: date, departure: date) -> int:
    """Return the number of nights between arrival and departure."""
    nights = (departure - arrival).days
    if nights < 1:
        raise ValueError("departure must be after arrival")
    return nights
