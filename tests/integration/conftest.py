"""Integration fixtures: the real vLLM CPU server with the pulled embedded model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from runtime.endpoint import embedded_server
from runtime.settings import Settings, load_settings
from runtime.vllm import VLLMServer


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/integration" in str(item.path):
            item.add_marker(pytest.mark.integration)


@pytest.fixture(scope="session")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
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
