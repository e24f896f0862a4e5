from garage.tariff import DAY_CAP_CENTS, HOURLY_RATE_CENTS


def parking_fee_cents(hours: int) -> int:
    return min(hours * HOURLY_RATE_CENTS, DAY_CAP_CENTS)
