"""Reference solution: leave left after a request."""

from hr.errors import LeaveQuotaExceeded
from hr.policy import ANNUAL_LEAVE_DAYS, CARRY_OVER_MAX


def remaining_leave(taken: int, requested: int, carried_over: int) -> int:
    """Return the leave days left after granting the request."""
    allowance = ANNUAL_LEAVE_DAYS + min(carried_over, CARRY_OVER_MAX)
    left = allowance - taken - requested
    if left < 0:
        raise LeaveQuotaExceeded(f"{requested} days requested, {allowance - taken} left")
    return left
