import re

SECONDS = {"d": 86400, "h": 3600, "m": 60, "s": 1}
PART = re.compile(r"(\d+)([dhms])", re.IGNORECASE)
WHOLE = re.compile(r"\s*(?:\d+[dhms]\s*)+", re.IGNORECASE)


def parse_duration(text: str) -> int:
    """Return the seconds in a duration made of parts like "2d", "1h", "30m", "5s"."""
    if not WHOLE.fullmatch(text):
        raise ValueError(f"not a duration: {text!r}")
    return sum(int(number) * SECONDS[unit.lower()] for number, unit in PART.findall(text))
