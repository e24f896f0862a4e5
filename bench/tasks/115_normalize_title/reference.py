MINOR = {"a", "an", "the", "and", "or", "of", "in", "on", "to", "for"}


def normalize_title(title: str) -> str:
    """The title with single spaces, minor words in lower case and other words capitalised."""
    words = title.split()
    result = []
    for index, word in enumerate(words):
        inner = 0 < index < len(words) - 1
        if inner and word.lower() in MINOR:
            result.append(word.lower())
        elif len(word) >= 2 and word.isupper():
            result.append(word)
        else:
            result.append(word[0].upper() + word[1:].lower())
    return " ".join(result)
