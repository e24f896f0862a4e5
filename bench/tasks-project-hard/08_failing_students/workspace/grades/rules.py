"""Promotion rules and limits (school regulations, section 7)."""

PASS_MARK = 4.0
"""A grade below this is insufficient."""

MAX_INSUFFICIENT = 3
"""A student with more insufficient subject grades is not promoted."""

MIN_AVERAGE = 4.0
DOUBLE_WEIGHT_SUBJECTS = frozenset({"German", "Mathematics"})
