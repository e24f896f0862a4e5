"""Best guess without the project: keep the prefix and width seen, mod-26 check letter."""

import re
import string


def _check(digits: str) -> str:
    total = sum(weight * int(d) for weight, d in enumerate(digits, start=1))
    return string.ascii_uppercase[total % 26]


def next_card_numbers(existing: list[str], count: int) -> list[str]:
    """Return the next count card numbers after the highest serial in use."""
    prefix, width, highest = "LIB", 6, 0
    for card in existing:
        match = re.match(r"([A-Z]+)-(\d+)-[A-Z]", card.strip().upper())
        if match:
            prefix, width = match.group(1), len(match.group(2))
            highest = max(highest, int(match.group(2)))
    result = []
    for serial in range(highest + 1, highest + 1 + count):
        digits = f"{serial:0{width}d}"
        result.append(f"{prefix}-{digits}-{_check(digits)}")
    return result
