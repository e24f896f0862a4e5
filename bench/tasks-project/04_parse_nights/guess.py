"""Best guess from task.txt: a ValueError for bad input."""


def parse_nights(text: str) -> int:
    nights = int(text.strip())
    if nights < 1:
        raise ValueError("at least one night")
    return nights
