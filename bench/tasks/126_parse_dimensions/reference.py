import re

NUMBER = r"(\d+(?:\.\d+)?)"
SIZE = re.compile(rf"{NUMBER} *[xX] *{NUMBER} *[xX] *{NUMBER} *(mm|cm|m)?", re.ASCII)
SCALE = {"mm": 1, "cm": 10, "m": 1000}


def parse_dimensions(text: str) -> tuple[int, int, int]:
    """The three sizes in whole millimetres."""
    match = SIZE.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"not a size: {text!r}")
    scale = SCALE[match[4] or "mm"]
    first, second, third = (round(float(match[i]) * scale) for i in (1, 2, 3))
    if 0 in (first, second, third):
        raise ValueError(f"a size is 0: {text!r}")
    return (first, second, third)
