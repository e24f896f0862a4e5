import re

UNITS = {"B": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3}
SIZE = re.compile(r"(\d+) *(B|KB|MB|GB)", re.IGNORECASE)


def parse_size(text: str) -> int:
    """Return the bytes in a size such as "10KB"."""
    match = SIZE.fullmatch(text.strip())
    if not match:
        raise ValueError(f"not a size: {text!r}")
    return int(match[1]) * UNITS[match[2].upper()]
