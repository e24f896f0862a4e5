from datetime import date


def count_nights(check_in: str, check_out: str) -> int:
    """The number of days from check_in to check_out, which must be later."""
    nights = (date.fromisoformat(check_out) - date.fromisoformat(check_in)).days
    if nights <= 0:
        raise ValueError("check_out must be after check_in")
    return nights
