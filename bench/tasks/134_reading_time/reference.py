def reading_time(text: str, words_per_minute: int) -> int:
    """The number of words divided by the speed, rounded up."""
    words = len(text.split())
    return (words + words_per_minute - 1) // words_per_minute
