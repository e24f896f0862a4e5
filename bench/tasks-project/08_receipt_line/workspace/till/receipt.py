"""Layout of the printed receipt."""

RECEIPT_WIDTH = 32
SHOP_NAME = "Hofladen Birkenhof"


def fmt_money(cents: int) -> str:
    """Write an amount as the till prints it, e.g. 1250 -> ``12,50``."""
    return f"{cents // 100},{cents % 100:02d}"


def receipt_row(left: str, right: str) -> str:
    """Lay out one receipt row: left text, dot leaders, right text, RECEIPT_WIDTH wide."""
    gap = RECEIPT_WIDTH - len(left) - len(right)
    return left + "." * max(gap, 1) + right


def header() -> str:
    """Return the first line of every receipt."""
    return SHOP_NAME.center(RECEIPT_WIDTH)
