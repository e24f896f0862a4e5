"""Best guess without the project: 4.95 euro, free from 50 euro."""

FLAT_FEE_CENTS = 495
FREE_FROM_CENTS = 5000


def delivery_fee_cents(order_cents: int) -> int:
    """Return the delivery fee in cents for an order total."""
    if order_cents >= FREE_FROM_CENTS:
        return 0
    return FLAT_FEE_CENTS
