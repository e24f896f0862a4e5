from itertools import zip_longest


def compare_versions(left: str, right: str) -> int:
    """Return -1, 0 or 1 as version left is older than, equal to or newer than right."""
    left_parts = [int(part) for part in left.removeprefix("v").split(".")]
    right_parts = [int(part) for part in right.removeprefix("v").split(".")]
    for a, b in zip_longest(left_parts, right_parts, fillvalue=0):
        if a != b:
            return -1 if a < b else 1
    return 0
