"""Best guess without the project: quarter hours rounded up, typical Swiss law-firm rates."""

import math

RATES_CENTS = {"partner": 40000, "associate": 25000, "trainee": 15000, "paralegal": 12000}


def invoice_total_cents(entries: list[tuple[str, int]]) -> int:
    """Return the invoice total in cents."""
    total = 0
    for role, minutes in entries:
        billable = math.ceil(minutes / 15) * 15
        total += round(billable * RATES_CENTS[role] / 60)
    return total
