"""Library members: card numbers and membership checks."""

from datetime import date


def card_number(branch_code: str, member_id: int) -> str:
    """Return a printed card number such as 'OST-000123'."""
    return f"{branch_code.upper()}-{member_id:06d}"


def membership_active(expires: str, today: str) -> bool:
    """Return True if a membership expiring on `expires` is valid on `today`."""
    return date.fromisoformat(today) <= date.fromisoformat(expires)
