def bump_patch(version: str) -> str:
    """MAJOR.MINOR.PATCH with PATCH one higher."""
    parts = version.strip().split(".")
    if len(parts) != 3 or not all(part.isdigit() for part in parts):
        raise ValueError(f"not a version: {version!r}")
    major, minor, patch = parts
    return f"{major}.{minor}.{int(patch) + 1}"
