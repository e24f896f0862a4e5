import string

ALLOWED = set(string.ascii_lowercase + string.digits + "_")


def is_valid_username(name: str) -> bool:
    """Return True if name follows the username rules."""
    if not 3 <= len(name) <= 16:
        return False
    if name[0] not in string.ascii_lowercase or name.endswith("_"):
        return False
    return "__" not in name and all(char in ALLOWED for char in name)
