"""Reference solution: public path of an article."""

from datetime import date

from blog.settings import ARTICLE_PATH
from blog.textutil import slugify_title


def article_url(title: str, published: date) -> str:
    """Return the public URL path of an article."""
    return ARTICLE_PATH.format(
        year=published.year, month=published.month, slug=slugify_title(title)
    )
