class Inventory:
    """Stock counts of named items."""

    def __init__(self) -> None:
        self._counts: dict[str, int] = {}

    def add(self, item: str, qty: int) -> None:
        """Add qty to the count of item."""
        self._counts[item] = self._counts.get(item, 0) + qty

    def remove(self, item: str, qty: int) -> None:
        """Take qty away from item; ValueError if there are not enough."""
        have = self._counts.get(item, 0)
        if have < qty:
            raise ValueError(f"only {have} of {item!r}")
        if have == qty:
            del self._counts[item]
        else:
            self._counts[item] = have - qty

    def count(self, item: str) -> int:
        """Return the count of item, 0 if unknown."""
        return self._counts.get(item, 0)

    def items(self) -> list[tuple[str, int]]:
        """Return (item, count) pairs sorted by item name."""
        return sorted(self._counts.items())
