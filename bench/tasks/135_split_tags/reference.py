def split_tags(text: str) -> list[str]:
    """The comma-separated tags, stripped and lower-cased, empty ones dropped."""
    tags = (tag.strip().lower() for tag in text.split(","))
    return [tag for tag in tags if tag]
