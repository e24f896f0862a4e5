from collections.abc import Hashable
from typing import Any


class LeastUsedCache:
    """A bounded cache that evicts the least used entry, the oldest one on a tie."""

    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self._capacity = capacity
        self._entries: dict[Hashable, list[Any]] = {}  # key -> [value, uses, added]
        self._added = 0

    def get(self, key: Hashable) -> Any:
        """Return the value for key and count a use, or None if key is absent."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        entry[1] += 1
        return entry[0]

    def put(self, key: Hashable, value: Any) -> None:
        """Store value under key, evicting the least used entry if the cache is full."""
        if key in self._entries:
            self._entries[key][0] = value
            return
        if len(self._entries) >= self._capacity:
            victim = min(self._entries, key=lambda k: self._entries[k][1:])
            del self._entries[victim]
        self._entries[key] = [value, 0, self._added]
        self._added += 1

    def size(self) -> int:
        """Return the number of entries."""
        return len(self._entries)
