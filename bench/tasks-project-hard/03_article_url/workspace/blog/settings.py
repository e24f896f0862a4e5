"""Site settings of the Bergnotizen blog."""

SITE_NAME = "Bergnotizen"
SITE_HOST = "https://bergnotizen.example"
ARTICLE_PATH = "/journal/{year}/{month:02d}/{slug}.html"
"""Public path of an article; ``slug`` is the title run through the title slug rule."""
TAG_PATH = "/tags/{tag}/"
FEED_PATH = "/feed.atom"
FEED_ENTRIES = 20
PAGE_SIZE = 8
