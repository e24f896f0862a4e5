def gcd(a: int, b: int) -> int:
    """Return the greatest common divisor of a and b."""
    a, b = abs(a), abs(b)
    while b:
        a, b = b, a % b
    return a
