def invoice_number(prefix: str, number: int) -> str:
    """PREFIX-NNNNNN: the prefix upper-cased, the number zero-padded to 6 digits."""
    if number < 1:
        raise ValueError("invoice numbers start at 1")
    return f"{prefix.strip().upper()}-{number:06d}"
