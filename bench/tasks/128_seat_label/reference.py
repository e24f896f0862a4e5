def seat_label(row: int, seat: int) -> str:
    """The row's letter (1 is "A") followed by the seat number."""
    if not 1 <= row <= 26 or seat < 1:
        raise ValueError("no such seat")
    return chr(ord("A") + row - 1) + str(seat)
