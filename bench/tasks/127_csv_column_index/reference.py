def csv_column_index(header: str, column: str) -> int:
    """The index of the first header name equal to ``column``, or -1."""
    wanted = column.strip().lower()
    for index, name in enumerate(header.split(",")):
        if name.strip().lower() == wanted:
            return index
    return -1
