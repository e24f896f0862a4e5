def parse_ini(text: str) -> dict[str, dict[str, str]]:
    """Parse INI-style text into {section: {key: value}}."""
    result: dict[str, dict[str, str]] = {}
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
            result.setdefault(section, {})
        elif "=" in line:
            key, value = line.split("=", 1)
            result.setdefault(section, {})[key.strip()] = value.strip()
        else:
            raise ValueError(f"bad line: {raw!r}")
    return result
