def parse_key_values(text: str) -> dict[str, str]:
    """Parse "k=v;k2=v2" into a dict."""
    result: dict[str, str] = {}
    for piece in text.split(";"):
        if "=" not in piece:
            continue
        key, value = piece.split("=", 1)
        result[key.strip()] = value.strip()
    return result
