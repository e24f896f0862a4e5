"""Ledger entries and account balances."""

from dataclasses import dataclass


@dataclass
class Entry:
    """One booking: an account, an amount in cents and a text."""

    account: str
    amount_cents: int
    text: str


def balance_cents(entries: list[Entry], account: str) -> int:
    """Return the sum of all entries booked on one account."""
    return sum(e.amount_cents for e in entries if e.account == account)
