"""Unit tests see no EDGESWARM_* settings from the caller's environment, but their own gateway
lock directory; the ``tag`` fixture."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

from runtime.gateway.lock import LOCK_DIR_ENV


@pytest.fixture(autouse=True)
def _no_edgeswarm_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith("EDGESWARM_"):
            monkeypatch.delenv(name)


@pytest.fixture(autouse=True)
def gateway_locks(_no_edgeswarm_env: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This test's gateway lock directory (``EDGESWARM_LOCK_DIR``, which the gateways and runs
    it starts inherit), never the machine-wide one, so test runs in parallel never meet.

    It is ``tmp_path / "state"``, the state directory the gateway tests give their settings
    and configs: tests written when the lock lived under the state directory (they pass it to
    ``lock_path``, ``DeviceLock``, ``start_lock``) still name the locks their gateways take.
    Made when a lock is first taken.
    """
    path = tmp_path / "state"
    monkeypatch.setenv(LOCK_DIR_ENV, str(path))
    return path


@pytest.fixture
def tag() -> str:
    """A text unique to this test that the fake vLLM servers it starts carry on their command
    line, to find them in ``/proc`` (``tests.support.gateway``: ``fake_model``, ``live_fakes``)."""
    return f"t-{uuid.uuid4().hex[:10]}"
