"""Box selection for outgoing orders."""

BOXES = [
    ("S", 250, 2000),
    ("M", 400, 5000),
    ("L", 600, 10000),
    ("XL", 900, 31500),
]


def pick_box(goods_weight_g: int) -> str:
    """Return the smallest box that can carry the goods.

    Each box is (name, own weight in grams, maximum total weight in grams).

    Raises:
        ValueError: If no box can carry the goods.
    """
    for name, own_weight, max_weight in BOXES:
        if goods_weight_g + own_weight <= max_weight:
            return name
    raise ValueError(f"too heavy for one parcel: {goods_weight_g} g")
