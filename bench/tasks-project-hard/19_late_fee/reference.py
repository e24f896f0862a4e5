"""Reference solution: late fine from the general collection's loan rules."""

import json
from datetime import date


def late_fee(item_type: str, borrowed: str, returned: str) -> int:
    """Return the late fine in cents for an item of item_type."""
    with open("config/loan_rules.json", encoding="utf-8") as fh:
        rules = json.load(fh)
    kept = (date.fromisoformat(returned) - date.fromisoformat(borrowed)).days
    days_late = kept - rules["loan_period_days"][item_type]
    if days_late <= 0:
        return 0
    fine = days_late * rules["daily_fine_cents"][item_type]
    return min(fine, rules["max_fine_cents"][item_type])
