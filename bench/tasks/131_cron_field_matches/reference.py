import re

PART = re.compile(r"(\*|\d+|\d+-\d+)(?:/(\d+))?")


def allowed(part: str) -> tuple[int, int | None, int]:
    """The part as (low, high, step); high None means no upper bound."""
    match = PART.fullmatch(part)
    if match is None:
        raise ValueError(f"bad part {part!r}")
    base, step_text = match.groups()
    step = int(step_text) if step_text is not None else 1
    if step < 1:
        raise ValueError(f"bad step in {part!r}")
    if base == "*":
        return (0, None, step)
    if "-" in base:
        low, high = (int(n) for n in base.split("-"))
        if low > high:
            raise ValueError(f"range {part!r} runs backwards")
        return (low, high, step)
    if step_text is not None:
        raise ValueError(f"a step needs a range or *: {part!r}")
    return (int(base), int(base), 1)


def cron_field_matches(field: str, value: int) -> bool:
    """Whether value matches any part of the cron field."""
    ranges = [allowed(part) for part in field.split(",")]
    return any(
        value >= low and (high is None or value <= high) and (value - low) % step == 0
        for low, high, step in ranges
    )
