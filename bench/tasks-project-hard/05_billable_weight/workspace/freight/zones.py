"""Delivery zones by postcode."""

CITY_POSTCODES = range(8000, 8100)
REGION_POSTCODES = range(8100, 8600)


def zone_for(postcode: int) -> str:
    """Return ``"city"``, ``"region"`` or ``"partner"`` for a Swiss postcode."""
    if postcode in CITY_POSTCODES:
        return "city"
    if postcode in REGION_POSTCODES:
        return "region"
    return "partner"
