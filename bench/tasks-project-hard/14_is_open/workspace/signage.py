"""Shop-window signage: format a branch's weekly hours for printing."""

import json

DAY_NAMES = {
    "mon": "Monday",
    "tue": "Tuesday",
    "wed": "Wednesday",
    "thu": "Thursday",
    "fri": "Friday",
    "sat": "Saturday",
    "sun": "Sunday",
}


def load_branch(path: str) -> dict:
    """Return a branch's data file as a dict."""
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def sign_lines(branch: dict) -> list[str]:
    """Return one printable line per weekday, e.g. 'Monday: 08:30-18:00'."""
    lines = []
    for key, name in DAY_NAMES.items():
        span = branch["weekly"].get(key)
        lines.append(f"{name}: {span[0]}-{span[1]}" if span else f"{name}: closed")
    return lines
