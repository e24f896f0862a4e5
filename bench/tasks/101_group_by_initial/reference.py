def group_by_initial(words: list[str]) -> dict[str, list[str]]:
    """Group words by their lower-cased first letter, each group sorted ignoring case."""
    groups: dict[str, list[str]] = {}
    for word in words:
        if word:
            groups.setdefault(word[0].lower(), []).append(word)
    return {letter: sorted(group, key=str.lower) for letter, group in groups.items()}
