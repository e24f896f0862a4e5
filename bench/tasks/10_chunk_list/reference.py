from typing import Any


def chunk_list(items: list[Any], size: int) -> list[list[Any]]:
    """Split items into chunks of the given size."""
    if size < 1:
        raise ValueError("size must be at least 1")
    return [items[start : start + size] for start in range(0, len(items), size)]
