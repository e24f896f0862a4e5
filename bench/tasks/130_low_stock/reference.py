def low_stock(stock: dict[str, int], threshold: int) -> list[str]:
    """The names whose count is below ``threshold``, sorted."""
    return sorted(name for name, count in stock.items() if count < threshold)
