UNITS = (("d", 86400), ("h", 3600), ("m", 60), ("s", 1))


def humanize_duration(seconds: int) -> str:
    """The largest non-zero unit and the one below it (when not zero): "1h 2m"."""
    if seconds < 0:
        raise ValueError("seconds must not be negative")
    if seconds == 0:
        return "0s"
    amounts = []
    rest = seconds
    for letter, size in UNITS:
        amount, rest = divmod(rest, size)
        amounts.append((amount, letter))
    first = next(index for index, (amount, _) in enumerate(amounts) if amount)
    shown = [f"{amount}{letter}" for amount, letter in amounts[first : first + 2] if amount]
    return " ".join(shown)
