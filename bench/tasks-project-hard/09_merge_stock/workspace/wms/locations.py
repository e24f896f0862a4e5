"""Bin locations: aisle letter, shelf number and level, e.g. ``C-12-3``."""

import re

_LOCATION = re.compile(r"([A-H])-(\d{1,2})-([1-5])")


def parse_location(text: str) -> tuple[str, int, int]:
    """Return ``(aisle, shelf, level)`` of a bin location.

    Raises:
        ValueError: If the text is not a bin location.
    """
    match = _LOCATION.fullmatch(text.strip().upper())
    if match is None:
        raise ValueError(f"not a bin location: {text!r}")
    return match.group(1), int(match.group(2)), int(match.group(3))


def pick_order(locations: list[str]) -> list[str]:
    """Sort bin locations in walking order: aisle, then shelf, then level."""
    return sorted(locations, key=parse_location)
