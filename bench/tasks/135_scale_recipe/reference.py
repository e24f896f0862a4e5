import re

QUANTITY = re.compile(r"(\d+)/(\d+)|\d+(?:\.\d+)?", re.ASCII)


def quantity(word: str) -> float | None:
    """The number a word stands for, or None when it is not a quantity."""
    match = QUANTITY.fullmatch(word)
    if match is None:
        return None
    if match[1] is None:
        return float(word)
    if int(match[2]) == 0:
        return None
    return int(match[1]) / int(match[2])


def scale_recipe(lines: list[str], factor: float) -> list[str]:
    """Each line with its leading quantity multiplied by factor."""
    if factor <= 0:
        raise ValueError("factor must be above 0")
    scaled = []
    for line in lines:
        word, space, rest = line.partition(" ")
        amount = quantity(word) if space else None
        if amount is None:
            scaled.append(line)
            continue
        text = f"{round(amount * factor, 2):.2f}".rstrip("0").rstrip(".")
        scaled.append(f"{text} {rest}")
    return scaled
