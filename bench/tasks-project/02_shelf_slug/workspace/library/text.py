"""Text helpers for catalogue entries and shelf labels."""

import re
import unicodedata

STOP_WORDS = frozenset({"a", "an", "the", "of", "and", "der", "die", "das", "und", "le", "la"})
MAX_SLUG_WORDS = 4


def fold_ascii(text: str) -> str:
    """Return text without accents (é -> e, ü -> u)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return decomposed.encode("ascii", "ignore").decode("ascii")


def sort_key(title: str) -> str:
    """Return the key that orders titles in the printed catalogue."""
    return fold_ascii(title).casefold().strip()


def catalogue_slug(title: str) -> str:
    """Return the shelf-label slug of a title.

    Words are folded to ASCII and lower case, stop words are dropped and at most
    MAX_SLUG_WORDS words are kept, joined by hyphens.
    """
    words = re.findall(r"[a-z0-9]+", fold_ascii(title).lower())
    kept = [word for word in words if word not in STOP_WORDS]
    return "-".join(kept[:MAX_SLUG_WORDS])
