"""Reference solution: continue the library card serials."""

from members.cardno import format_card_number, parse_card_number


def next_card_numbers(existing: list[str], count: int) -> list[str]:
    """Return the next count card numbers after the highest serial in use."""
    highest = max((parse_card_number(card) for card in existing), default=0)
    return [format_card_number(serial) for serial in range(highest + 1, highest + 1 + count)]
