def column_width(rows: list[list[str]], column: int) -> int:
    """The length of the longest cell in ``column``, 0 when no row reaches it."""
    width = 0
    for row in rows:
        if column < len(row):
            width = max(width, len(row[column]))
    return width
