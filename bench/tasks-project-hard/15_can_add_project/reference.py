"""Reference solution: project limit per plan from the billing config."""

import tomllib


def can_add_project(plan: str, current_projects: int) -> bool:
    """Return True if an account on `plan` with current_projects may add one."""
    with open("billing/plans.toml", "rb") as fh:
        plans = tomllib.load(fh)["plans"]
    limit = plans[plan]["max_projects"]
    return limit == 0 or current_projects < limit
