SHIPPING, FREE_SHIPPING_FROM = 499, 3000


def line_cost(unit_price: int, quantity: int) -> int:
    cost = unit_price * quantity
    return cost - cost // 10 if quantity >= 3 else cost


def checkout_total(cart: list[tuple[str, int, int]], coupon: str) -> int:
    """The cart's price in cents after bulk discounts, the coupon and shipping."""
    code = coupon.strip().upper()
    if code not in ("", "SAVE15", "FLAT500"):
        raise ValueError(f"unknown coupon {coupon!r}")
    subtotal = sum(line_cost(price, quantity) for _, price, quantity in cart)
    total = subtotal
    if code == "SAVE15":
        total -= subtotal * 15 // 100
    elif code == "FLAT500" and subtotal >= 2000:
        total -= 500
    if subtotal and total < FREE_SHIPPING_FROM:
        total += SHIPPING
    return total
