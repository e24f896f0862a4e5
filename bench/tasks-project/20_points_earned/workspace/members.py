"""Member card numbers of the loyalty card."""


def card_number(member_id: int) -> str:
    """Return a printable card number such as 'BON-000123'."""
    return f"BON-{member_id:06d}"


def member_id(card: str) -> int:
    """Return the member id of a card number."""
    return int(card.removeprefix("BON-"))
