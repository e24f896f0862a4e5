import re

LABEL = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")


def is_valid_hostname(name: str) -> bool:
    """Whether name is a valid DNS host name (one trailing dot allowed)."""
    if name.endswith("."):
        name = name[:-1]
    if not 1 <= len(name) <= 253:
        return False
    labels = name.split(".")
    if not all(LABEL.fullmatch(label) for label in labels):
        return False
    return not labels[-1].isdigit()
