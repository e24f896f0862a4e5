"""Best guess without the project: airport shops open 06:00-22:00 every day."""

from datetime import datetime


def is_open(when: str) -> bool:
    """Return True if the airport branch is open at the local time `when`."""
    moment = datetime.fromisoformat(when)
    if (moment.month, moment.day) in {(12, 25), (1, 1)}:
        return False
    clock = moment.strftime("%H:%M")
    return "06:00" <= clock < "22:00"
