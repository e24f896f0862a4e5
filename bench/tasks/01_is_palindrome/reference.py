def is_palindrome(text: str) -> bool:
    """Return True if text is a palindrome, ignoring case and non-alphanumerics."""
    cleaned = [char.lower() for char in text if char.isalnum()]
    return cleaned == cleaned[::-1]
