def allocate_seats(rows: list[str], party: int) -> tuple[int, int] | None:
    """The first (row, seat) that starts party free seats in a row, searching front to back."""
    if party < 1:
        raise ValueError("party must be at least 1")
    block = "." * party
    for number, row in enumerate(rows):
        seat = row.find(block)
        if seat != -1:
            return (number, seat)
    return None
