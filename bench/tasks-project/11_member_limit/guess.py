"""Best guess without the project: typical SaaS plan limits."""

LIMITS = {"free": 1, "starter": 3, "team": 10, "pro": 25, "business": 50, "enterprise": 1000}


def member_limit(plan: str) -> int:
    """Return the maximum number of members for a plan."""
    return LIMITS[plan]
