from itertools import pairwise


def is_sorted(items: list[float]) -> bool:
    """Whether items is in ascending order (equal neighbours allowed)."""
    return all(left <= right for left, right in pairwise(items))
