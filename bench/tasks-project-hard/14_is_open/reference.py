"""Reference solution: is the airport branch open at a given moment."""

import json
from datetime import datetime

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def is_open(when: str) -> bool:
    """Return True if the airport branch is open at the local time `when`."""
    with open("branches/airport/hours.json", encoding="utf-8") as fh:
        branch = json.load(fh)
    moment = datetime.fromisoformat(when)
    if moment.date().isoformat() in branch["closed_dates"]:
        return False
    span = branch["weekly"].get(DAYS[moment.weekday()])
    if not span:
        return False
    clock = moment.strftime("%H:%M")
    return span[0] <= clock < span[1]
