class Scoreboard:
    """Running point totals per player."""

    def __init__(self) -> None:
        self._totals: dict[str, int] = {}

    def record(self, player: str, points: int) -> int:
        """Add points to player's total and return the new total."""
        self._totals[player] = self._totals.get(player, 0) + points
        return self._totals[player]

    def total(self, player: str) -> int:
        """Return player's total, 0 if never recorded."""
        return self._totals.get(player, 0)

    def top(self, n: int) -> list[str]:
        """Return up to n names, highest total first, ties by name."""
        if n <= 0:
            return []
        ranked = sorted(self._totals, key=lambda name: (-self._totals[name], name))
        return ranked[:n]
