"""Unit tests see no EDGESWARM_* settings from the caller's environment."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(autouse=True)
def _no_edgeswarm_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith("EDGESWARM_"):
            monkeypatch.delenv(name)
