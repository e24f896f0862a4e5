from typing import Any


def rotate_list(items: list[Any], k: int) -> list[Any]:
    """Return items rotated k places to the right."""
    if not items:
        return []
    k %= len(items)
    return items[-k:] + items[:-k] if k else list(items)
