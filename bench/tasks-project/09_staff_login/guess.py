"""Best guess from task.txt: five letters of the last name plus the first initial, ASCII-folded."""

import unicodedata


def _fold(name: str) -> str:
    text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return "".join(ch for ch in text.lower() if ch.isalpha())


def staff_login(first: str, last: str) -> str:
    return _fold(last)[:5] + _fold(first)[:1]
