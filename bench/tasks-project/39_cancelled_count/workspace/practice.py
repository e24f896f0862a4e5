"""Opening hours and slot length of the Praxis am Park."""

SLOT_MINUTES = 15
OPENING = {0: ("08:00", "18:00"), 1: ("08:00", "18:00"), 2: ("08:00", "13:00")}


def slots_per_day(weekday: int) -> int:
    """Return how many appointment slots a weekday (0 = Monday) has; 0 when closed."""
    if weekday not in OPENING:
        return 0
    start, end = OPENING[weekday]
    minutes = _minutes(end) - _minutes(start)
    return minutes // SLOT_MINUTES


def _minutes(clock: str) -> int:
    """Return the minutes since midnight of a 'HH:MM' time."""
    hours, minutes = clock.split(":")
    return int(hours) * 60 + int(minutes)
