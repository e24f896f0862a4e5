def page_items(items: list[str], page: int, per_page: int) -> list[str]:
    """The slice of ``items`` shown on page ``page`` (pages start at 1)."""
    if page < 1:
        raise ValueError("page must be at least 1")
    start = (page - 1) * per_page
    return items[start : start + per_page]
