def histogram(counts: dict[str, int]) -> str:
    """Return one "label |###" line per label, labels sorted and padded to the same width."""
    if any(count < 0 for count in counts.values()):
        raise ValueError("counts must not be negative")
    width = max((len(label) for label in counts), default=0)
    return "\n".join(f"{label.ljust(width)} |{'#' * counts[label]}" for label in sorted(counts))
