"""Article numbers (SKUs): two or three letters for the product group and a number."""

import re

SKU_DIGITS = 5
SKU_SEPARATOR = "."
_PATTERN = re.compile(r"([A-Z]{2,3})0*(\d+)")


def canonical_sku(raw: str) -> str:
    """Return an article number in the form the WMS stores, e.g. ``KB.00123``.

    Case, spaces, dashes, slashes and underscores in the input do not matter; the number
    is written with :data:`SKU_DIGITS` digits after :data:`SKU_SEPARATOR`.

    Args:
        raw: The article number as typed, e.g. ``"kb-123"`` or ``"KB 00123"``.

    Returns:
        The canonical article number.

    Raises:
        ValueError: If the text is not an article number.
    """
    compact = re.sub(r"[\s\-_/.]", "", raw).upper()
    match = _PATTERN.fullmatch(compact)
    if match is None:
        raise ValueError(f"not an article number: {raw!r}")
    group, number = match.groups()
    return f"{group}{SKU_SEPARATOR}{int(number):0{SKU_DIGITS}d}"
