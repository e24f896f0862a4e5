"""Carriers and their pickup days."""

PICKUP_DAYS = {
    "planzer": ("Mon", "Wed", "Fri"),
    "post_cargo": ("Tue", "Thu"),
    "galliker": ("Mon", "Thu"),
}


def carriers_on(day: str) -> list[str]:
    """Return the carriers that pick up on a day (``Mon`` ... ``Fri``), sorted."""
    return sorted(name for name, days in PICKUP_DAYS.items() if day in days)
