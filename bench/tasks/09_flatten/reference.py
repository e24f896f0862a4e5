from typing import Any


def flatten(nested: list[Any]) -> list[Any]:
    """Return the non-list items of a nested list, in order."""
    result: list[Any] = []
    for item in nested:
        if isinstance(item, list):
            result.extend(flatten(item))
        else:
            result.append(item)
    return result
