"""Best guess without the project: 30-minute slots, 09:00-17:00 on weekdays."""

HOURS = {day: ("09:00", "17:00") for day in ("mon", "tue", "wed", "thu", "fri")}
SLOT_MINUTES = 30
GAP_MINUTES = 0


def slot_starts(weekday: str) -> list[str]:
    """Return the in-person slot start times of a weekday."""
    if weekday not in HOURS:
        return []
    open_h, open_m = map(int, HOURS[weekday][0].split(":"))
    close_h, close_m = map(int, HOURS[weekday][1].split(":"))
    start, end = open_h * 60 + open_m, close_h * 60 + close_m
    starts = []
    while start + SLOT_MINUTES <= end:
        starts.append(f"{start // 60:02d}:{start % 60:02d}")
        start += SLOT_MINUTES + GAP_MINUTES
    return starts
