def page_count(items: int, per_page: int) -> int:
    """``items`` divided by ``per_page``, rounded up."""
    if per_page < 1:
        raise ValueError("per_page must be at least 1")
    if items < 0:
        raise ValueError("items must not be negative")
    return (items + per_page - 1) // per_page
