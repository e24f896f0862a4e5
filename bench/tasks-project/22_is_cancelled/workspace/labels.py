"""Parcel label text for the courier's printer."""

MAX_LINE = 32


def label_lines(name: str, street: str, postcode: str, city: str) -> list[str]:
    """Return the lines of a parcel label, each cut to the printer's width."""
    lines = [name, street, f"{postcode} {city.upper()}"]
    return [line[:MAX_LINE] for line in lines]


def label_text(name: str, street: str, postcode: str, city: str) -> str:
    """Return the label as one string, one line per address line."""
    return "\n".join(label_lines(name, street, postcode, city))
