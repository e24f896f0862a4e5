"""Sort bank bookings into budget categories by their text."""

KEYWORDS = {
    "groceries": ("edeka", "rewe", "aldi", "bäckerei", "rösterei"),
    "transport": ("db vertrieb", "tankstelle", "hvv"),
    "leisure": ("kino", "buchhandlung", "schwimmbad"),
    "housing": ("miete", "stadtwerke"),
}


def category(text: str) -> str:
    """Return the budget category of a booking text, or "other"."""
    lowered = text.lower()
    for name, words in KEYWORDS.items():
        if any(word in lowered for word in words):
            return name
    return "other"
