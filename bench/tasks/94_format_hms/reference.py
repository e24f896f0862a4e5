def format_hms(seconds: int) -> str:
    """Format a non-negative number of seconds as "H:MM:SS"."""
    if seconds < 0:
        raise ValueError("seconds must not be negative")
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}"
