from itertools import combinations


def minutes(time: str) -> int:
    hours, mins = time.split(":")
    return int(hours) * 60 + int(mins)


def find_conflicts(meetings: list[tuple[str, str, str]]) -> list[tuple[str, str]]:
    """Each pair of overlapping meetings once, names sorted, the pairs sorted."""
    spans = [(name, minutes(start), minutes(end)) for name, start, end in meetings]
    pairs = []
    for (a, a_start, a_end), (b, b_start, b_end) in combinations(spans, 2):
        if a_start < b_end and b_start < a_end:
            pairs.append((min(a, b), max(a, b)))
    return sorted(pairs)
