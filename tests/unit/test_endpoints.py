"""A run whose context names no endpoint: the host process's default (graphs/endpoints.py)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import asdict, replace
from typing import Any

import pytest

from graphs import endpoints
from graphs.context import Context
from graphs.endpoints import HostedEndpointError, close_hosted_endpoint, with_default_endpoint
from graphs.state import InputState, OutputState
from graphs.swarm import graph
from runtime.endpoint import Endpoint
from runtime.gateway.lock import DeviceBusyError
from runtime.settings import Settings
from tests.fakes import FakeOpenAI
from tests.support.graph import ctx
from tests.support.scripts import GOOD_CODE, audits, brief, code, suite


@pytest.fixture(autouse=True)
def _fresh_host() -> Iterator[None]:
    close_hosted_endpoint()
    yield
    close_hosted_endpoint()


def no_endpoint(fake: FakeOpenAI) -> Context:
    """What Studio sends when only a task is typed: no base_url (the fake's models named)."""
    return replace(ctx(fake), base_url="")


async def run(context: Context) -> OutputState:
    out = await graph.ainvoke(InputState(task="Write `add(a, b)`."), context=context, version="v2")
    state: OutputState = out.value
    return state


class Started:
    """A stand-in for swarm_endpoint: an owned endpoint at the fake, entered and left."""

    def __init__(self, fake: FakeOpenAI, error: Exception | None = None) -> None:
        self.fake, self.error = fake, error
        self.entered: list[list[str]] = []
        self.left = 0

    @contextlib.contextmanager
    def __call__(self, settings: Settings, models: list[str]) -> Iterator[Endpoint]:
        if self.error is not None:
            raise self.error
        self.entered.append(models)
        try:
            yield Endpoint(self.fake.base_url, models[0], owned=True)
        finally:
            self.left += 1


async def test_a_context_that_names_an_endpoint_is_kept(fake_openai: FakeOpenAI) -> None:
    context = ctx(fake_openai)
    assert await with_default_endpoint(context) is context


async def test_a_run_with_no_endpoint_uses_edgeswarm_base_url(
    fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EDGESWARM_BASE_URL", fake_openai.base_url)
    fake_openai.script(brief(), code(GOOD_CODE), suite(), *audits())
    state = await run(no_endpoint(fake_openai))
    assert state.report is not None and state.report.outcome == "approved", state.error
    requests = fake_openai.requests()
    assert requests and all(body["model"] == fake_openai.model for body in requests)


async def test_the_embedded_gateway_starts_once_for_the_process_and_stops_at_close(
    fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    started = Started(fake_openai)
    monkeypatch.setattr(endpoints, "swarm_endpoint", started)
    fake_openai.script(*[brief(), code(GOOD_CODE), suite(), *audits()] * 2)
    for _ in range(2):
        state = await run(no_endpoint(fake_openai))
        assert state.report is not None and state.report.outcome == "approved", state.error
    assert started.entered == [["big", "small"]] and started.left == 0
    # a later run that wants a model it was not started for is told why, not sent a 404
    with pytest.raises(HostedEndpointError, match="also asks for other"):
        await with_default_endpoint(
            Context(**{**asdict(no_endpoint(fake_openai)), "coder_model": "other"})
        )
    close_hosted_endpoint()
    assert started.left == 1


async def test_no_endpoint_fails_the_run_at_setup_with_the_reason(
    fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    busy = DeviceBusyError("another edgeswarm gateway (pid 42) owns device cpu")
    monkeypatch.setattr(endpoints, "swarm_endpoint", Started(fake_openai, busy))
    state = await run(no_endpoint(fake_openai))
    assert state.status == "failed" and state.error is not None
    assert "no endpoint for this run" in state.error and "pid 42" in state.error
    assert state.report is not None and state.report.outcome == "failed"
    assert fake_openai.requests() == []  # no node asked anything


def test_an_empty_base_url_is_the_default_and_a_bad_one_is_refused() -> None:
    assert Context().base_url == ""
    with pytest.raises(ValueError, match="base_url must be an http"):
        Context(base_url="localhost:8000")
    fields: dict[str, Any] = {"base_url": "http://127.0.0.1:9/v1"}
    assert Context(**fields).base_url == fields["base_url"]
