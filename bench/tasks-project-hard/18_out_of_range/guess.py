"""Best guess without the project: common warehouse sensor ranges."""

LIMITS = {
    "temperature": (2.0, 8.0),
    "humidity": (30.0, 70.0),
    "co2": (None, 1000.0),
    "battery": (3.0, None),
}


def out_of_range(readings: list[tuple[str, float]]) -> list[int]:
    """Return the indexes of the readings outside their kind's limits."""
    bad = []
    for index, (kind, value) in enumerate(readings):
        if kind not in LIMITS:
            continue
        low, high = LIMITS[kind]
        if (low is not None and value < low) or (high is not None and value > high):
            bad.append(index)
    return bad
