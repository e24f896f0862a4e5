from collections import Counter


def pairs_with_sum(numbers: list[int], target: int) -> list[tuple[int, int]]:
    """The sorted distinct pairs (a, b), a <= b, of two positions adding up to target."""
    counts = Counter(numbers)
    pairs = set()
    for a in counts:
        b = target - a
        if (a < b and b in counts) or (a == b and counts[a] >= 2):
            pairs.add((a, b))
    return sorted(pairs)
