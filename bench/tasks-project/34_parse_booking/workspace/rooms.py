"""Room prices and the tourist tax of the Pension Sonnenhof."""

TOURIST_TAX_CENTS = 250


def stay_price_cents(night_price_cents: int, nights: int, guests: int) -> int:
    """Return the price of a stay in cents: the room price plus tourist tax per guest and night."""
    return nights * (night_price_cents + guests * TOURIST_TAX_CENTS)


def is_high_season(month: int, high_months: list[int]) -> bool:
    """Tell whether a month (1-12) is in the high season."""
    return month in high_months
