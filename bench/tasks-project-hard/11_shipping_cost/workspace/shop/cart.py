"""Cart arithmetic: line totals and the cart's total in cents."""


def line_total_cents(unit_price_cents: int, quantity: int) -> int:
    """Return the total of one cart line in cents."""
    if quantity < 0:
        raise ValueError("quantity must not be negative")
    return unit_price_cents * quantity


def cart_total_cents(lines: list[tuple[int, int]]) -> int:
    """Return the cart total in cents for (unit_price_cents, quantity) lines."""
    return sum(line_total_cents(price, qty) for price, qty in lines)


def total_weight_kg(weights: list[tuple[float, int]]) -> float:
    """Return the parcel weight for (item_weight_kg, quantity) pairs."""
    return round(sum(w * qty for w, qty in weights), 3)
