def wait_times(arrivals: list[int], service: int) -> list[int]:
    """Return each customer's wait at a single first-come, first-served counter."""
    waits: list[int] = []
    free_at = arrivals[0] if arrivals else 0
    for arrival in arrivals:
        start = max(arrival, free_at)
        waits.append(start - arrival)
        free_at = start + service
    return waits
