def run_length_encode(text: str) -> str:
    """Encode runs of equal characters as character + count."""
    parts: list[str] = []
    index = 0
    while index < len(text):
        run_end = index
        while run_end < len(text) and text[run_end] == text[index]:
            run_end += 1
        parts.append(f"{text[index]}{run_end - index}")
        index = run_end
    return "".join(parts)
