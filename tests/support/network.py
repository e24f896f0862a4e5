"""The loopback ports unit tests may reach: the network guard in ``tests/conftest.py`` lets a
unit test connect to a port only once a fixture or helper has allowed it here."""

from __future__ import annotations

from runtime.process import free_port

allowed_ports: set[int] = set()
"""Every port allowed so far (for the whole session)."""


def allow_loopback_port(port: int) -> None:
    """Let unit tests connect to a loopback port a fixture opened."""
    allowed_ports.add(port)


def allowed_port() -> int:
    """A free port, allowed."""
    port = free_port()
    allow_loopback_port(port)
    return port
