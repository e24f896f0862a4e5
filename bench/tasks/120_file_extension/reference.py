def file_extension(filename: str) -> str:
    """The text after the last dot, lower-cased; "" for no extension."""
    dot = filename.rfind(".")
    if dot <= 0:
        return ""
    return filename[dot + 1 :].lower()
