"""Which box a parcel goes into."""

BOXES = [("S", 2000), ("M", 5000), ("L", 10000), ("XL", 31500)]


def box_for(weight_g: int) -> str:
    """Return the smallest box size that carries weight_g grams.

    Raises:
        ValueError: If the parcel is heavier than the largest box allows.
    """
    for size, limit in BOXES:
        if weight_g <= limit:
            return size
    raise ValueError(f"too heavy for one parcel: {weight_g} g")
