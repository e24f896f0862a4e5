"""Best guess without the project: free, pro and business plans."""

LIMITS = {"free": 3, "pro": 20, "business": None}


def can_add_project(plan: str, current_projects: int) -> bool:
    """Return True if an account on `plan` with current_projects may add one."""
    limit = LIMITS[plan]
    return limit is None or current_projects < limit
