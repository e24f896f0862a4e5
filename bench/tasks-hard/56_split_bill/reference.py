def split_bill(total: int, people: int) -> list[int]:
    """Split total cents into people near-equal shares, larger shares first."""
    if people < 1:
        raise ValueError("need at least one person")
    if total < 0:
        raise ValueError("total must not be negative")
    share, extra = divmod(total, people)
    return [share + 1] * extra + [share] * (people - extra)
