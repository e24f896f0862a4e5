def fibonacci(n: int) -> int:
    """Return the n-th Fibonacci number."""
    if n < 0:
        raise ValueError("n must be non-negative")
    previous, current = 0, 1
    for _ in range(n):
        previous, current = current, previous + current
    return previous
