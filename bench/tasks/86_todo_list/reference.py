class TodoList:
    """Numbered tasks that can be marked done."""

    def __init__(self) -> None:
        self._titles: list[str] = []
        self._done: set[int] = set()

    def add(self, title: str) -> int:
        """Add a task and return its number, counting from 1."""
        self._titles.append(title)
        return len(self._titles)

    def complete(self, number: int) -> None:
        """Mark task number as done; an unknown number raises KeyError."""
        if not 1 <= number <= len(self._titles):
            raise KeyError(number)
        self._done.add(number)

    def pending(self) -> list[str]:
        """Return the titles not done yet, in the order added."""
        return [
            title for number, title in enumerate(self._titles, start=1) if number not in self._done
        ]

    def done_count(self) -> int:
        """Return how many tasks are done."""
        return len(self._done)
