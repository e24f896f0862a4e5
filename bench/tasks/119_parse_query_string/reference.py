import re

ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")


def decode(text: str) -> str:
    """Plus signs as spaces, %XX as the character with that code."""
    return ESCAPE.sub(lambda match: chr(int(match[1], 16)), text.replace("+", " "))


def parse_query_string(query: str) -> dict[str, list[str]]:
    """The query's keys, each with its decoded values in order."""
    query = query.removeprefix("?")
    result: dict[str, list[str]] = {}
    for piece in query.split("&"):
        if not piece:
            continue
        key, _, value = piece.partition("=")
        result.setdefault(decode(key), []).append(decode(value))
    return result
