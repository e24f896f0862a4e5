def next_palindrome(n: int) -> int:
    """The smallest palindromic integer greater than n."""
    candidate = max(n + 1, 0)
    while str(candidate) != str(candidate)[::-1]:
        candidate += 1
    return candidate
