"""Company rules from the staff regulations, edition 2024."""

ANNUAL_LEAVE_DAYS = 27
"""Standard yearly leave in working days, for everyone (regulations section 12)."""

CARRY_OVER_MAX = 5
"""At most this many unused days count when carried into the next year (section 13)."""

PROBATION_MONTHS = 3
WEEKLY_HOURS = 42.5
NOTICE_MONTHS = {"probation": 0, "first_year": 1, "later": 2}
