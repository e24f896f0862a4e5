from frontdesk.errors import InvalidBookingInput


def parse_nights(text: str) -> int:
    try:
        nights = int(text.strip())
    except ValueError as exc:
        raise InvalidBookingInput(f"not a number of nights: {text!r}") from exc
    if nights < 1:
        raise InvalidBookingInput("at least one night")
    return nights
