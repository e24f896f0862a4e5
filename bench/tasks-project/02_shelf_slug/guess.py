"""Best guess from task.txt: English stop words dropped, words joined by hyphens."""

import re
import unicodedata

STOP = {"a", "an", "the", "of", "and", "or", "in", "on", "to", "for"}


def shelf_slug(title: str) -> str:
    text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    words = re.findall(r"[a-z0-9]+", text.lower())
    return "-".join(word for word in words if word not in STOP)
