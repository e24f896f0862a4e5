import re
from collections import Counter


def top_words(text: str, n: int) -> list[tuple[str, int]]:
    """The n most frequent lower-case words, ties alphabetically."""
    counts = Counter(word.lower() for word in re.findall(r"[A-Za-z]+", text))
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return ranked[:n]
