"""Text helpers shared by the templates and the build."""

import re

SLUG_MAX = 40
_GERMAN = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})


def slugify_title(title: str) -> str:
    """Turn an article title into the slug used in its URL.

    Lower-case, German umlauts and ß spelled out (``ä`` becomes ``ae``), every run of
    other characters than a-z and 0-9 becomes one underscore, no underscore at either
    end, and at most :data:`SLUG_MAX` characters (cut, then trailing underscores removed).

    Args:
        title: The article title.

    Returns:
        The slug, e.g. ``ueber_die_gemmi`` for ``"Über die Gemmi"``.
    """
    text = title.lower().translate(_GERMAN)
    slug = re.sub(r"[^a-z0-9]+", "_", text).strip("_")
    return slug[:SLUG_MAX].rstrip("_")


def reading_minutes(text: str, words_per_minute: int = 200) -> int:
    """Return the estimated reading time of a text in whole minutes, at least 1."""
    words = len(text.split())
    return max(1, round(words / words_per_minute))


def excerpt(text: str, length: int = 160) -> str:
    """Return the first ``length`` characters of a text, cut at a word boundary."""
    if len(text) <= length:
        return text
    cut = text[:length].rsplit(" ", 1)[0]
    return cut + " …"
