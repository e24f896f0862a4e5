"""Opening hours and appointment slots."""

from datetime import time

OPENING_HOURS = {
    0: (time(8, 0), time(18, 0)),
    1: (time(8, 0), time(18, 0)),
    2: (time(8, 0), time(12, 0)),
    3: (time(8, 0), time(18, 0)),
    4: (time(8, 0), time(16, 0)),
}
SLOT_MINUTES = 15


def is_open(weekday: int, at: time) -> bool:
    """Whether the practice is open on a weekday (0 = Monday) at a time."""
    hours = OPENING_HOURS.get(weekday)
    return hours is not None and hours[0] <= at < hours[1]


def slots_per_day(weekday: int) -> int:
    """Return how many appointment slots fit into the opening hours of a weekday."""
    hours = OPENING_HOURS.get(weekday)
    if hours is None:
        return 0
    minutes = (hours[1].hour * 60 + hours[1].minute) - (hours[0].hour * 60 + hours[0].minute)
    return minutes // SLOT_MINUTES
