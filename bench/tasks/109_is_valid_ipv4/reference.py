def is_valid_ipv4(text: str) -> bool:
    """Whether text is four dot-separated decimal numbers 0-255 without leading zeros."""
    parts = text.split(".")
    if len(parts) != 4:
        return False
    for part in parts:
        if not part or not all("0" <= ch <= "9" for ch in part):
            return False
        if len(part) > 1 and part[0] == "0":
            return False
        if int(part) > 255:
            return False
    return True
