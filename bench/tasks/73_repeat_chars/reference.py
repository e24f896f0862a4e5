def repeat_chars(text: str, times: int) -> str:
    """Repeat each character of text times times."""
    if times < 0:
        raise ValueError("times must not be negative")
    return "".join(char * times for char in text)
