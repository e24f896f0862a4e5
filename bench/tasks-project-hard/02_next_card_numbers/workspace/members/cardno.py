"""Library card numbers such as ``LBM-004217-H``: prefix, six-digit serial, check letter."""

CARD_PREFIX = "LBM"
CHECK_ALPHABET = "ACDEFHJKLMNPRTUVWXY"
"""19 letters; the ones easily misread on a worn card (B, G, I, O, Q, S, Z) are left out."""


def card_check_letter(serial: int) -> str:
    """Return the check letter of a serial.

    The six digits of the zero-padded serial are weighted 2, 3, 4, 5, 6, 7 from left to
    right; the weighted sum modulo 19 picks a letter of :data:`CHECK_ALPHABET`.

    Args:
        serial: The card serial, 1 to 999999.

    Returns:
        One upper-case letter.
    """
    digits = f"{serial:06d}"
    total = sum(weight * int(digit) for weight, digit in zip(range(2, 8), digits, strict=True))
    return CHECK_ALPHABET[total % len(CHECK_ALPHABET)]


def format_card_number(serial: int) -> str:
    """Return the printed card number of a serial, e.g. ``LBM-000042-A``."""
    return f"{CARD_PREFIX}-{serial:06d}-{card_check_letter(serial)}"


def parse_card_number(card: str) -> int:
    """Return the serial of a printed card number.

    Args:
        card: A card number as printed, e.g. ``LBM-000042-A``.

    Returns:
        The serial.

    Raises:
        ValueError: If the text is not a card number or its check letter is wrong.
    """
    parts = card.strip().upper().split("-")
    if len(parts) != 3 or parts[0] != CARD_PREFIX or not parts[1].isdigit():
        raise ValueError(f"not a card number: {card!r}")
    serial = int(parts[1])
    if parts[2] != card_check_letter(serial):
        raise ValueError(f"wrong check letter: {card!r}")
    return serial
