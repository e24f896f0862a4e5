from collections import deque


def completion_order(jobs: list[tuple[str, int]], quantum: int) -> list[tuple[str, int]]:
    """Return (name, finish_time) pairs of a round-robin run, in finishing order."""
    if quantum < 1:
        raise ValueError("quantum must be at least 1")
    queue = deque(jobs)
    clock = 0
    finished: list[tuple[str, int]] = []
    while queue:
        name, left = queue.popleft()
        step = min(quantum, left)
        clock += step
        if left > step:
            queue.append((name, left - step))
        else:
            finished.append((name, clock))
    return finished
