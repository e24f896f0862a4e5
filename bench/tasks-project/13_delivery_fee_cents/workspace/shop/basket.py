"""Basket totals in cents."""


def basket_total_cents(lines: list[tuple[int, int]]) -> int:
    """Return the total for (unit_price_cents, quantity) lines."""
    return sum(price * qty for price, qty in lines)


def item_count(lines: list[tuple[int, int]]) -> int:
    """Return how many items the basket holds."""
    return sum(qty for _, qty in lines)
