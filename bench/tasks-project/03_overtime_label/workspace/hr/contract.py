"""Terms of the standard employment contract."""

STANDARD_WEEK_MINUTES = 2310  # 38.5 hours
WORK_DAYS_PER_WEEK = 5
PROBATION_MONTHS = 3
NOTICE_MONTHS = 2


def daily_target_minutes(workload_percent: int) -> int:
    """Return the minutes to work per day for a workload in percent."""
    return STANDARD_WEEK_MINUTES * workload_percent // (100 * WORK_DAYS_PER_WEEK)
