def mask_digits(text: str, keep: int = 4) -> str:
    """Return text with all digits but the last keep ones replaced by "*"."""
    to_mask = sum(char in "0123456789" for char in text) - keep
    result = []
    for char in text:
        if char in "0123456789" and to_mask > 0:
            result.append("*")
            to_mask -= 1
        else:
            result.append(char)
    return "".join(result)
