import re


def slugify(title: str) -> str:
    """Return title as a lowercase slug of ASCII letters and digits joined by "-"."""
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
