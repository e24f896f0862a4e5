def snake_to_camel(name: str) -> str:
    """Convert a snake_case name to camelCase."""
    words = [word for word in name.split("_") if word]
    if not words:
        return ""
    return words[0] + "".join(word[0].upper() + word[1:] for word in words[1:])
