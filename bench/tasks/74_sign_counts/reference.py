def sign_counts(numbers: list[float]) -> tuple[int, int, int]:
    """Count the negative, zero and positive numbers."""
    negatives = sum(1 for number in numbers if number < 0)
    zeros = sum(1 for number in numbers if number == 0)
    return negatives, zeros, len(numbers) - negatives - zeros
