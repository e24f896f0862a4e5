def order_total(lines: list[tuple[int, int]]) -> int:
    """The sum of unit_price * quantity over the lines, in cents."""
    total = 0
    for unit_price, quantity in lines:
        if unit_price < 0 or quantity < 0:
            raise ValueError("negative price or quantity")
        total += unit_price * quantity
    return total
