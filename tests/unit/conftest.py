"""Unit tests see no EDGESWARM_* settings from the caller's environment; the ``tag`` fixture."""

from __future__ import annotations

import os
import uuid

import pytest


@pytest.fixture(autouse=True)
def _no_edgeswarm_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith("EDGESWARM_"):
            monkeypatch.delenv(name)


@pytest.fixture
def tag() -> str:
    """A text unique to this test that the fake vLLM servers it starts carry on their command
    line, to find them in ``/proc`` (``tests.support.gateway``: ``fake_model``, ``live_fakes``)."""
    return f"t-{uuid.uuid4().hex[:10]}"
