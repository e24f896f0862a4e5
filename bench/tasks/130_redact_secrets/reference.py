import re

SETTING = re.compile(r"(?<!\S)([A-Za-z0-9_-]+)=(\S*)")
SECRET_KEYS = {"password", "passwd", "token", "secret"}


def is_secret(key: str) -> bool:
    key = key.lower()
    return key in SECRET_KEYS or key.endswith(("_key", "_token"))


def redact_secrets(line: str) -> str:
    """The line with the value of every secret key=value word replaced by ***."""

    def hide(match: re.Match[str]) -> str:
        key = match[1]
        return f"{key}=***" if is_secret(key) else match[0]

    return SETTING.sub(hide, line)
