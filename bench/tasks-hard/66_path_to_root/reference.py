from collections.abc import Hashable


def path_to_root(parents: dict[Hashable, Hashable | None], node: Hashable) -> list[Hashable]:
    """Return node and its ancestors, ending with the root."""
    path = [node]
    seen = {node}
    parent = parents[node]
    while parent is not None:
        if parent in seen:
            raise ValueError(f"cycle at {parent!r}")
        path.append(parent)
        seen.add(parent)
        parent = parents[parent]
    return path
