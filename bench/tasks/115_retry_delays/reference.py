def retry_delays(base: int, attempts: int, cap: int) -> list[int]:
    """The delays base, 2*base, 4*base, ..., each at most ``cap``."""
    return [min(base * 2**attempt, cap) for attempt in range(attempts)]
