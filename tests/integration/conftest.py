"""Integration fixtures: the real vLLM CPU server with the pulled embedded model; gateway lock
directories of the session's and each test's own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from runtime.endpoint import embedded_server
from runtime.gateway.lock import LOCK_DIR_ENV
from runtime.settings import Settings, load_settings
from runtime.vllm import VLLMServer


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/integration" in str(item.path):
            item.add_marker(pytest.mark.integration)


@pytest.fixture(scope="session", autouse=True)
def _session_lock_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The gateway lock directory (``EDGESWARM_LOCK_DIR``) of session- and module-scoped
    settings and gateways: never the machine-wide one, so test runs in parallel never meet."""
    path = tmp_path_factory.mktemp("locks")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(LOCK_DIR_ENV, str(path))
        yield path


@pytest.fixture(autouse=True)
def gateway_locks(
    _session_lock_dir: Path,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> Path:
    """This test's own gateway lock directory, which the gateways and runs it starts inherit:
    a gateway it starts does not meet one that a module-scoped fixture keeps running."""
    path = tmp_path_factory.mktemp("locks")
    monkeypatch.setenv(LOCK_DIR_ENV, str(path))
    return path


@pytest.fixture(scope="session")
def settings(_session_lock_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """Default settings (the models `make models` pulled), with state in a temp dir."""
    return load_settings(state_dir=tmp_path_factory.mktemp("state"))


@pytest.fixture(scope="session")
def coder_server(settings: Settings) -> Iterator[VLLMServer]:
    """The embedded default model served by vLLM's CPU build, once per test session."""
    server = embedded_server(settings, die_with_parent=False)
    with server:
        yield server


@pytest.fixture(scope="session")
def models_dir(settings: Settings) -> Path:
    return settings.models_dir
