import string

LETTERS = string.ascii_uppercase
DIGITS = "0123456789"


def is_valid_badge(badge: str) -> bool:
    """Return True if badge looks like "AB-1234-C" with a correct check digit C."""
    if len(badge) != 9 or badge[2] != "-" or badge[7] != "-":
        return False
    letters, digits, check = badge[:2], badge[3:7], badge[8]
    if any(char not in LETTERS for char in letters):
        return False
    if any(char not in DIGITS for char in digits + check):
        return False
    total = sum(LETTERS.index(char) + 1 for char in letters) + sum(int(d) for d in digits)
    return total % 10 == int(check)
