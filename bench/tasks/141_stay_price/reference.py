from datetime import date, timedelta

FRIDAY, SATURDAY = 4, 5


def stay_price(check_in: str, check_out: str, rate: int) -> int:
    """The nights' prices (Friday and Saturday nights 25% more), 10% off from 7 nights."""
    first, last = date.fromisoformat(check_in), date.fromisoformat(check_out)
    nights = (last - first).days
    if nights < 1:
        raise ValueError("check_out must be after check_in")
    total = 0
    for offset in range(nights):
        day = first + timedelta(days=offset)
        weekend = day.weekday() in (FRIDAY, SATURDAY)
        total += rate + rate // 4 if weekend else rate
    if nights >= 7:
        total -= total // 10
    return total
