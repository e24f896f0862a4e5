def diff_config(old: dict[str, str], new: dict[str, str]) -> list[str]:
    """One line per added, removed or changed setting, sorted by name."""
    lines = []
    for name in sorted(old.keys() | new.keys()):
        if name not in old:
            lines.append(f"+ {name}={new[name]}")
        elif name not in new:
            lines.append(f"- {name}={old[name]}")
        elif old[name] != new[name]:
            lines.append(f"~ {name}: {old[name]} -> {new[name]}")
    return lines
