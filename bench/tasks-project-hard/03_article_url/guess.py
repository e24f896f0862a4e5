"""Best guess without the project: /YYYY/MM/DD/hyphen-slug/."""

import re
import unicodedata
from datetime import date


def article_url(title: str, published: date) -> str:
    """Return the public URL path of an article."""
    text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return f"/{published:%Y/%m/%d}/{slug}/"
