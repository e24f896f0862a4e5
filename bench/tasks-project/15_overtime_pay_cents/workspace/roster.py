"""Weekly shift roster for the warehouse."""

SHIFTS = ("early", "late", "night")


def roster(staff: list[str]) -> dict[str, str]:
    """Assign the staff to the shifts in turn, e.g. {'Ada': 'early'}."""
    return {name: SHIFTS[i % len(SHIFTS)] for i, name in enumerate(staff)}
