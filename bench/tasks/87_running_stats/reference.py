class RunningStats:
    """Count, mean, smallest and largest of the numbers added so far."""

    def __init__(self) -> None:
        self._values: list[float] = []

    def add(self, value: float) -> None:
        """Record a number."""
        self._values.append(value)

    def count(self) -> int:
        """Return how many numbers were added."""
        return len(self._values)

    def _check(self) -> None:
        if not self._values:
            raise ValueError("no numbers added yet")

    def mean(self) -> float:
        """Return the average of the numbers added."""
        self._check()
        return sum(self._values) / len(self._values)

    def smallest(self) -> float:
        """Return the smallest number added."""
        self._check()
        return min(self._values)

    def largest(self) -> float:
        """Return the largest number added."""
        self._check()
        return max(self._values)
