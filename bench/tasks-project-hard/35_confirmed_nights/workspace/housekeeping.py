"""Room cleaning plan for the guesthouse."""

FULL_CLEAN_MINUTES = 45
STAY_OVER_MINUTES = 15


def cleaning_minutes(departures: int, stay_overs: int) -> int:
    """Return the minutes of cleaning work for one day.

    Args:
        departures: Rooms whose guests leave that day (full clean).
        stay_overs: Rooms whose guests stay on (quick tidy).

    Returns:
        The planned minutes of work.
    """
    return departures * FULL_CLEAN_MINUTES + stay_overs * STAY_OVER_MINUTES
