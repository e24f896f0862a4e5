from urllib.parse import unquote


def decode(text: str) -> str:
    """Decode "+" as a space and %XX escapes."""
    return unquote(text.replace("+", " "))


def parse_query(query: str) -> dict[str, list[str]]:
    """Parse "a=1&b=2&a=3" into {"a": ["1", "3"], "b": ["2"]}."""
    result: dict[str, list[str]] = {}
    for piece in query.removeprefix("?").split("&"):
        if not piece:
            continue
        key, _, value = piece.partition("=")
        result.setdefault(decode(key), []).append(decode(value))
    return result
