"""Reading the fields of the booking form."""

from datetime import date

from frontdesk.errors import InvalidBookingInput

MAX_GUESTS = 4


def parse_arrival(text: str) -> date:
    """Return the arrival date typed as YYYY-MM-DD."""
    try:
        return date.fromisoformat(text.strip())
    except ValueError as exc:
        raise InvalidBookingInput(f"not a date: {text!r}") from exc


def check_guests(guests: int) -> int:
    """Return the number of guests if one room can hold them."""
    if not 1 <= guests <= MAX_GUESTS:
        raise InvalidBookingInput(f"guests must be 1 to {MAX_GUESTS}")
    return guests
