import re

KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*", re.ASCII)


def value_of(raw: str) -> str:
    """The value with quotes removed, or with a trailing " #" comment cut off."""
    value = raw.strip(" ")
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value.split(" #", 1)[0].rstrip(" ")


def parse_env(lines: list[str]) -> dict[str, str]:
    """The settings of a .env file; ValueError for a line that is not one."""
    settings: dict[str, str] = {}
    for line in lines:
        text = line.lstrip(" ")
        if not text.strip() or text.startswith("#"):
            continue
        text = text.removeprefix("export ")
        key, equals, raw = text.partition("=")
        key = key.strip(" ")
        if not equals or not KEY.fullmatch(key):
            raise ValueError(f"not a setting: {line!r}")
        settings[key] = value_of(raw)
    return settings
