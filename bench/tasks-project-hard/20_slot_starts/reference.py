"""Reference solution: in-person slot start times from the clinic schedule."""

import tomllib


def _minutes(clock: str) -> int:
    """Return minutes since midnight for 'HH:MM'."""
    hours, minutes = clock.split(":")
    return int(hours) * 60 + int(minutes)


def slot_starts(weekday: str) -> list[str]:
    """Return the in-person slot start times of a weekday."""
    with open("clinic.toml", "rb") as fh:
        settings = tomllib.load(fh)["in_person"]
    span = settings["hours"].get(weekday)
    if not span:
        return []
    start, end = _minutes(span[0]), _minutes(span[1])
    length, gap = settings["slot_minutes"], settings["buffer_minutes"]
    starts = []
    while start + length <= end:
        starts.append(f"{start // 60:02d}:{start % 60:02d}")
        start += length + gap
    return starts
