class LineEditor:
    """A one-line text editor with undo."""

    def __init__(self, text: str = "") -> None:
        self._text = text
        self._history: list[str] = []

    def write(self, chars: str) -> None:
        """Add chars at the end of the text."""
        self._history.append(self._text)
        self._text += chars

    def delete(self, count: int) -> None:
        """Remove the last count characters, or all of them if count is larger."""
        self._history.append(self._text)
        self._text = self._text[: max(len(self._text) - count, 0)]

    def undo(self) -> None:
        """Revert the latest write or delete not undone yet; do nothing if there is none."""
        if self._history:
            self._text = self._history.pop()

    def text(self) -> str:
        """Return the current text."""
        return self._text
