import re

TIME = re.compile(r"(\d{1,2}):([0-5]\d) (AM|PM)")


def to_24_hour(time: str) -> str:
    """Convert "H:MM AM/PM" to "HH:MM"."""
    match = TIME.fullmatch(time)
    if not match:
        raise ValueError(f"not a 12-hour time: {time!r}")
    hour = int(match[1])
    if not 1 <= hour <= 12:
        raise ValueError(f"hour out of range: {time!r}")
    hour %= 12
    if match[3] == "PM":
        hour += 12
    return f"{hour:02d}:{match[2]}"
