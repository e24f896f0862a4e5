"""Best guess without the project: 25 days, carry-over capped at 5, own exception class."""


class LeaveQuotaExceededError(Exception):
    """The request goes over the allowance."""


def remaining_leave(taken: int, requested: int, carried_over: int) -> int:
    """Return the leave days left after granting the request."""
    allowance = 25 + min(carried_over, 5)
    left = allowance - taken - requested
    if left < 0:
        raise LeaveQuotaExceededError(requested)
    return left
