def failure_rate(status_codes: list[int]) -> float:
    """The percentage of codes from 400 to 599, rounded to 1 decimal; 0.0 for none."""
    if not status_codes:
        return 0.0
    failed = sum(1 for code in status_codes if 400 <= code <= 599)
    return round(failed * 100 / len(status_codes), 1)
