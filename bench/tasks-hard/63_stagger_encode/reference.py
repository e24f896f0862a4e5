import string


def shift(char: str, places: int) -> str:
    """Shift one ASCII letter forward, keeping its case."""
    alphabet = string.ascii_lowercase if char.islower() else string.ascii_uppercase
    return alphabet[(alphabet.index(char) + places) % 26]


def stagger_encode(text: str) -> str:
    """Shift the k-th ASCII letter of text forward by k places."""
    result = []
    k = 0
    for char in text:
        if char in string.ascii_letters:
            result.append(shift(char, k))
            k += 1
        else:
            result.append(char)
    return "".join(result)
