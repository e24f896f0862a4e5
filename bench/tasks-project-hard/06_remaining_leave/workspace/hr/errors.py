"""Exceptions of the HR tools. The web form shows their message to the user."""


class HRError(Exception):
    """Base class of all HR tool errors."""


class UnknownEmployee(HRError):
    """No employee with this staff number."""


class LeaveQuotaExceeded(HRError):
    """A leave request would take more days than the employee's yearly allowance."""


class PayrollLocked(HRError):
    """The month's payroll was already exported and cannot change."""
