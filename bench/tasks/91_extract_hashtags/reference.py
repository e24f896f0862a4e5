import re

HASHTAG = re.compile(r"#[A-Za-z0-9_]+")


def extract_hashtags(text: str) -> list[str]:
    """Return the distinct lowercase hashtags of text in order of first appearance."""
    found: list[str] = []
    for tag in HASHTAG.findall(text):
        tag = tag.lower()
        if tag not in found:
            found.append(tag)
    return found
