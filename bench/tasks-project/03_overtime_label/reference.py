from hr.contract import STANDARD_WEEK_MINUTES
from hr.timefmt import fmt_signed_duration


def overtime_label(worked_minutes: int) -> str:
    return fmt_signed_duration(worked_minutes - STANDARD_WEEK_MINUTES)
