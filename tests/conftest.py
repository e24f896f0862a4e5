"""Shared fixtures and the network guard.

The guard: no test may connect anywhere but loopback, and a unit test (one not marked
``integration``) may only reach loopback ports that a fixture opened for it (the fake
OpenAI-compatible server, say). An accidental request to a real model server, or to the
internet, fails the test with :class:`NetworkBlockedError`.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from runtime.process import ManagedProcess
from tests.fakes import FakeOpenAI, fake_command
from tests.postgres import PostgresServer, throwaway_postgres
from tests.support.network import allow_loopback_port, allowed_port, allowed_ports


class NetworkBlockedError(OSError):
    """A test tried to reach the network it is not allowed to."""


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@pytest.fixture(autouse=True)
def _network_guard(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    integration = request.node.get_closest_marker("integration") is not None
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex

    def check(sock: socket.socket, address: Any) -> None:
        if sock.family not in (socket.AF_INET, socket.AF_INET6):
            return
        host, port = str(address[0]), int(address[1])
        if not _is_loopback(host):
            raise NetworkBlockedError(f"test tried to reach {host}:{port}; tests stay offline")
        if not integration and port not in allowed_ports:
            raise NetworkBlockedError(
                f"unit test tried to reach 127.0.0.1:{port}, which no fixture opened; "
                "use the fake_openai fixture or mark the test integration"
            )

    def connect(sock: socket.socket, address: Any) -> None:
        check(sock, address)
        real_connect(sock, address)

    def connect_ex(sock: socket.socket, address: Any) -> int:
        check(sock, address)
        return real_connect_ex(sock, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)


def start_fake_server(log_dir: Path, model: str = "fake-model", **options: Any) -> FakeOpenAI:
    """Start a scripted fake server process (caller stops it) and allow unit tests to reach it.

    ``options`` are :func:`tests.fakes.fake_command`'s (``latency=0.5``, ``load_time=2``, ...).
    """
    port = allowed_port()
    process = ManagedProcess(
        f"fake:{port}",
        fake_command(port, model, **{"scripted": True, **options}),
        health_url=f"http://127.0.0.1:{port}/health",
        log_path=log_dir / f"fake-{port}.log",
        start_timeout_s=30,
    )
    process.start()
    return FakeOpenAI(process=process, port=port, model=model)


@pytest.fixture(scope="session")
def _fake_openai_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeOpenAI]:
    fake = start_fake_server(tmp_path_factory.mktemp("fake-openai"))
    try:
        yield fake
    finally:
        fake.process.stop()


@pytest.fixture
def fake_openai(_fake_openai_session: FakeOpenAI) -> FakeOpenAI:
    """A fake OpenAI-compatible server, reset for this test."""
    allow_loopback_port(_fake_openai_session.port)
    _fake_openai_session.reset()
    return _fake_openai_session


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A throwaway PostgreSQL server on loopback, once per session (tests/postgres.py)."""
    with throwaway_postgres() as server:
        yield server


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> str:
    """The URL of a fresh, empty PostgreSQL database for this test."""
    return postgres_server.create_database()


# Hypothesis: a fixed, derandomized profile by default (the same cases on every run and
# machine, nothing written to a database), and a long randomized one for soaking by hand:
# `pytest --hypothesis-profile=soak tests/unit/gateway/test_gateway_stateful.py`.
settings.register_profile(
    "edgeswarm",
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=1000,
    stateful_step_count=30,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "soak",
    parent=settings.get_profile("edgeswarm"),
    derandomize=False,
    max_examples=20_000,
    stateful_step_count=50,
)
settings.load_profile("edgeswarm")
