def late_fee(days_late: int, fee_per_day: int, max_fee: int) -> int:
    """days_late * fee_per_day, at most max_fee; 0 when not late."""
    if days_late <= 0:
        return 0
    return min(days_late * fee_per_day, max_fee)
