import re

VERSION = re.compile(r"(v?)(\d+)\.(\d+)\.(\d+)(?:-.+)?", re.ASCII | re.DOTALL)


def bump_version(version: str, part: str) -> str:
    """The next major, minor or patch version, keeping a leading v and dropping a tag."""
    match = VERSION.fullmatch(version)
    if match is None:
        raise ValueError(f"not a version: {version!r}")
    prefix = match[1]
    major, minor, patch = (int(match[i]) for i in (2, 3, 4))
    if part == "major":
        major, minor, patch = major + 1, 0, 0
    elif part == "minor":
        minor, patch = minor + 1, 0
    elif part == "patch":
        patch += 1
    else:
        raise ValueError(f"unknown part {part!r}")
    return f"{prefix}{major}.{minor}.{patch}"
