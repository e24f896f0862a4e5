"""Hourly rates per role, in cents, valid from 1 January 2025."""

HOURLY_RATES_CENTS = {
    "partner": 42000,
    "associate": 27500,
    "trainee": 14000,
    "paralegal": 11500,
}

EXPENSES_FLAT_PERCENT = 3
"""Flat rate for copies and postage, added on the invoice summary (not per entry)."""
