from typing import Any


def remove_duplicates(items: list[Any]) -> list[Any]:
    """Return items without duplicates, first occurrences in order."""
    seen: set[Any] = set()
    result: list[Any] = []
    for item in items:
        if item not in seen:
            seen.add(item)
            result.append(item)
    return result
