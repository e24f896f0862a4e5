import re

NUMBER = re.compile(r"[0-9]+(?:\.[0-9]+)?")
DIGITS = "0123456789"
SINGLE = "+-*/()"
BEFORE_SIGN = {"+", "-", "*", "/", "("}


def is_sign(expr: str, index: int, tokens: list[str]) -> bool:
    """Whether the "-" at index starts a negative number."""
    follows_digit = index + 1 < len(expr) and expr[index + 1] in DIGITS
    return follows_digit and (not tokens or tokens[-1] in BEFORE_SIGN)


def number_at(expr: str, start: int) -> str:
    """The number that starts at index start of expr."""
    match = NUMBER.match(expr, start)
    if match is None:
        raise ValueError(f"no number at {start}")
    return match.group()


def tokenize(expr: str) -> list[str]:
    """Split an arithmetic expression into number, operator and parenthesis tokens."""
    tokens: list[str] = []
    index = 0
    while index < len(expr):
        char = expr[index]
        if char == " ":
            index += 1
            continue
        if char == "-" and is_sign(expr, index, tokens):
            token = "-" + number_at(expr, index + 1)
        elif char in DIGITS:
            token = number_at(expr, index)
        elif char in SINGLE:
            token = char
        else:
            raise ValueError(f"unexpected character {char!r} at {index}")
        tokens.append(token)
        index += len(token)
    return tokens
