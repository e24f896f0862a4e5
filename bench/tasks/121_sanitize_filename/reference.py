import re

RESERVED = {"CON", "PRN", "AUX", "NUL"} | {f"{p}{n}" for p in ("COM", "LPT") for n in range(1, 10)}


def sanitize_filename(name: str) -> str:
    """The name with unsafe characters replaced, runs collapsed and reserved names escaped."""
    name = re.sub(r'[/\\:*?"<>|]', "_", name)
    name = re.sub(r"\s+", " ", name)
    name = re.sub(r"_+", "_", name)
    name = name.strip(" .")
    if name.split(".")[0].upper() in RESERVED:
        name = "_" + name
    return name or "unnamed"
