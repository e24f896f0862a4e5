"""When to send an alert to the gardeners."""

FROST_C = 2.0
HEAT_C = 38.0


def needs_alert(celsius: float) -> bool:
    """Whether a temperature is outside the range the plants tolerate."""
    return celsius < FROST_C or celsius > HEAT_C
