def binary_to_int(bits: str) -> int:
    """Return the value of a string of binary digits."""
    if not bits or any(char not in "01" for char in bits):
        raise ValueError(f"not a binary number: {bits!r}")
    value = 0
    for char in bits:
        value = value * 2 + int(char)
    return value
