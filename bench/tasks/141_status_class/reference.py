def status_class(code: int) -> str:
    """The hundreds digit followed by "xx", or "invalid" outside 100-599."""
    if not 100 <= code <= 599:
        return "invalid"
    return f"{code // 100}xx"
