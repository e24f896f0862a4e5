"""MQTT topic names of the gateway."""

BASE = "greenhouse/{site}"


def reading_topic(site: str, probe: str) -> str:
    """Return the topic a probe's readings are published on."""
    return f"{BASE.format(site=site)}/probe/{probe}/reading"


def status_topic(site: str) -> str:
    """Return the topic of the gateway's own status messages."""
    return f"{BASE.format(site=site)}/gateway/status"
