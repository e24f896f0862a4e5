from typing import Any


class Stack:
    """A last-in, first-out stack."""

    def __init__(self) -> None:
        self._items: list[Any] = []

    def push(self, item: Any) -> None:
        """Put item on top."""
        self._items.append(item)

    def pop(self) -> Any:
        """Remove and return the top item."""
        if not self._items:
            raise IndexError("pop from an empty stack")
        return self._items.pop()

    def peek(self) -> Any:
        """Return the top item without removing it."""
        if not self._items:
            raise IndexError("peek at an empty stack")
        return self._items[-1]

    def is_empty(self) -> bool:
        """Return True when the stack holds no items."""
        return not self._items

    def size(self) -> int:
        """Return the number of items."""
        return len(self._items)
