"""Best guess from task.txt: 3.00 an hour, at most 25.00 a day."""


def parking_fee_cents(hours: int) -> int:
    return min(hours * 300, 2500)
