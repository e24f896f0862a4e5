import re

GROUP = re.compile(r"([^\[\]]*)\[([^\[\]]*)\]([^\[\]]*)")


def numbers(item: str) -> list[str]:
    """The numbers one item gives, padded to the width of its start."""
    start, dash, end = item.partition("-")
    if not dash:
        end = start
    if not (start.isdigit() and end.isdigit()):
        raise ValueError(f"bad item {item!r}")
    if int(start) > int(end):
        raise ValueError(f"range {item!r} runs backwards")
    return [str(n).zfill(len(start)) for n in range(int(start), int(end) + 1)]


def expand_hostlist(pattern: str) -> list[str]:
    """The host names a pattern with one bracket group stands for."""
    if "[" not in pattern and "]" not in pattern:
        return [pattern]
    match = GROUP.fullmatch(pattern)
    if match is None:
        raise ValueError(f"unbalanced brackets in {pattern!r}")
    before, items, after = match.groups()
    return [f"{before}{n}{after}" for item in items.split(",") for n in numbers(item)]
