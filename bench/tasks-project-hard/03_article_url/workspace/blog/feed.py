"""Atom feed of the newest articles."""

from datetime import date
from xml.sax.saxutils import escape

from blog.settings import FEED_ENTRIES, SITE_HOST, SITE_NAME


def feed_xml(entries: list[tuple[str, str, date]]) -> str:
    """Return the Atom feed for ``(title, url_path, published)`` entries, newest first."""
    newest = sorted(entries, key=lambda entry: entry[2], reverse=True)[:FEED_ENTRIES]
    items = "".join(
        f"<entry><title>{escape(title)}</title>"
        f'<link href="{SITE_HOST}{path}"/><updated>{day.isoformat()}</updated></entry>'
        for title, path, day in newest
    )
    return f'<feed xmlns="http://www.w3.org/2005/Atom"><title>{SITE_NAME}</title>{items}</feed>'
