def digit_sum(number: int) -> int:
    """Return the sum of the decimal digits of number."""
    return sum(int(digit) for digit in str(abs(number)))
