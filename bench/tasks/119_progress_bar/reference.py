def progress_bar(done: int, total: int, width: int) -> str:
    """``width`` characters in brackets, done * width // total of them "#"."""
    filled = width if total == 0 else min(done, total) * width // total
    return "[" + "#" * filled + "-" * (width - filled) + "]"
