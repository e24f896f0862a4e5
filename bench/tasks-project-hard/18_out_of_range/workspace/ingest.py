"""Ingest: parse the gateway's raw sensor lines into readings."""


def parse_line(line: str) -> tuple[str, str, float]:
    """Parse 'device_id kind value' into (device_id, kind, value)."""
    device_id, kind, value = line.split()
    return device_id, kind, float(value)


def parse_batch(text: str) -> list[tuple[str, str, float]]:
    """Parse every non-empty line of a gateway batch."""
    return [parse_line(line) for line in text.splitlines() if line.strip()]
