"""Stock counts of the shop."""


def remaining(stock: dict[str, int], sold: dict[str, int]) -> dict[str, int]:
    """Return the stock left after the sales of a day (never below zero)."""
    return {code: max(count - sold.get(code, 0), 0) for code, count in stock.items()}
