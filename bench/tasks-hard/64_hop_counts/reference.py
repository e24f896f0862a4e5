from collections import deque
from collections.abc import Hashable


def hop_counts(
    graph: dict[Hashable, list[Hashable]], start: Hashable, max_hops: int
) -> dict[Hashable, int]:
    """Return the breadth-first hop count of each node within max_hops of start."""
    if max_hops < 0:
        raise ValueError("max_hops must not be negative")
    hops = {start: 0}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        if hops[node] == max_hops:
            continue
        for neighbour in graph.get(node, []):
            if neighbour not in hops:
                hops[neighbour] = hops[node] + 1
                queue.append(neighbour)
    return hops
