import string

DIGITS = "0123456789"


def add_check_letter(code: str) -> str:
    """Return code followed by its position-weighted check letter."""
    if not code or any(char not in DIGITS for char in code):
        raise ValueError("code must be a non-empty string of digits")
    total = sum(position * int(char) for position, char in enumerate(code, start=1))
    return code + string.ascii_uppercase[total % 26]
