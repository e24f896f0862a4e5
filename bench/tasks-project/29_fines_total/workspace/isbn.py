"""ISBN-13 helpers for the lending desk."""


def clean_isbn(text: str) -> str:
    """Return the digits of a typed ISBN, without spaces or dashes."""
    return "".join(ch for ch in text if ch.isdigit())


def isbn13_check_digit(first12: str) -> int:
    """Return the check digit for the first 12 digits of an ISBN-13."""
    total = sum(int(d) * (1 if i % 2 == 0 else 3) for i, d in enumerate(first12))
    return (10 - total % 10) % 10


def is_valid_isbn13(text: str) -> bool:
    """Return True when the text is a well-formed ISBN-13 with the right check digit."""
    digits = clean_isbn(text)
    if len(digits) != 13:
        return False
    return isbn13_check_digit(digits[:12]) == int(digits[12])
