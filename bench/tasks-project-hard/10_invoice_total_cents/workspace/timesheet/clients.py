"""Client numbers and matter references, e.g. ``K0412/2025-03``."""

import re

_MATTER = re.compile(r"K(\d{4})/(\d{4})-(\d{2})")


def split_matter(reference: str) -> tuple[int, int, int]:
    """Return ``(client, year, matter)`` of a matter reference.

    Raises:
        ValueError: If the text is not a matter reference.
    """
    match = _MATTER.fullmatch(reference.strip())
    if match is None:
        raise ValueError(f"not a matter reference: {reference!r}")
    client, year, matter = match.groups()
    return int(client), int(year), int(matter)
