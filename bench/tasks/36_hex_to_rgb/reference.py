HEX_DIGITS = set("0123456789abcdefABCDEF")


def hex_to_rgb(color: str) -> tuple[int, int, int]:
    """Return the (red, green, blue) ints of a "#rgb" or "#rrggbb" color."""
    digits = color[1:]
    if not color.startswith("#") or len(digits) not in (3, 6) or set(digits) - HEX_DIGITS:
        raise ValueError(f"not a hex color: {color!r}")
    if len(digits) == 3:
        digits = "".join(digit * 2 for digit in digits)
    return (int(digits[0:2], 16), int(digits[2:4], 16), int(digits[4:6], 16))
