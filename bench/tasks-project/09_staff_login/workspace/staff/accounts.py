"""Logins and mail addresses."""

import re

TRANSLIT = {"ä": "ae", "ö": "oe", "ü": "ue", "é": "e", "è": "e", "ç": "c", "ß": "ss"}
MAIL_DOMAIN = "gerber-treuhand.example"


def fold_name(name: str) -> str:
    """Return a name in lower case, umlauts spelled out, letters a-z only."""
    text = name.lower()
    for char, repl in TRANSLIT.items():
        text = text.replace(char, repl)
    return re.sub(r"[^a-z]", "", text)


def make_login(first: str, last: str) -> str:
    """Return the login: the first five letters of the last name and the first of the first name."""
    return fold_name(last)[:5] + fold_name(first)[:1]


def mail_address(first: str, last: str) -> str:
    """Return the mail address of an employee."""
    return f"{fold_name(first)}.{fold_name(last)}@{MAIL_DOMAIN}"
