"""Fault injection against real vLLM CPU servers: what ``tests/unit/test_swarm_faults.py`` does
with fake backends, here with real model processes behind the real gateway.

One gateway serves SmolLM2-135M in bfloat16 (every role's model) and in float32 (the
fallback), both resident (the budget fits both). Each test hurts the bf16 server the way a real
machine does (SIGSTOP: a hung server; SIGKILL: a crash; a budget too small: a cut-off answer;
the gateway in front killed and restarted) and asks through the graph's own call path
(:func:`graphs.llm.ask`: lease, structured call, resends, retry, fallback). Every test has a
timeout, so nothing may wait forever, and the module's gateway stops every server it started.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, Literal

import httpx
import pytest
import structlog
import yaml
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, ConfigDict, Field

from graphs.context import Context
from graphs.llm import Answer, NodeFailedError, ask
from runtime.gateway.embedded import GiB, embedded_gateway
from runtime.settings import Settings, load_settings
from tests.prometheus import samples
from tests.support.gateway import gateway_process

PRIMARY = "smollm2-135m-instruct"
FALLBACK = "smollm2-135m-instruct-fp32"
BUDGET = 10 * GiB  # both servers resident (about 4 GiB estimated each)


class Verdict(BaseModel):
    """A short structured answer (about 20 tokens)."""

    model_config = ConfigDict(extra="forbid")

    answer: Literal["yes", "no"] = Field(description="The answer.")
    reason: str = Field(max_length=60, description="Why, in a few words.")


QUESTION: list[BaseMessage] = [
    SystemMessage("You answer questions with a JSON object."),
    HumanMessage("Is Paris the capital of France?"),
]


@pytest.fixture(scope="module")
def fault_settings(tmp_path_factory: pytest.TempPathFactory, models_dir: Path) -> Settings:
    return load_settings(
        models_dir=models_dir,
        state_dir=tmp_path_factory.mktemp("faults"),
        cpu_kvcache_gib=1,
        max_model_len=2048,
        call_idle_s=400,
    )


@pytest.fixture(scope="module")
def gateway(fault_settings: Settings) -> Iterator[str]:
    """The gateway's ``/v1`` URL, both models loaded."""
    with embedded_gateway(fault_settings, [PRIMARY, FALLBACK], budget_bytes=BUDGET) as url:
        with httpx.Client(timeout=600, trust_env=False) as http:
            for name in (PRIMARY, FALLBACK):
                loaded = http.post(f"{url.removesuffix('/v1')}/models/{name}/load")
                assert loaded.status_code == 200, loaded.text
        yield url


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(timeout=600, trust_env=False) as client:
        yield client


def context(url: str, **overrides: Any) -> Context:
    """Every role on the bf16 server, the fp32 one as the fallback."""
    roles = {f"{role}_model": PRIMARY for role in ("researcher", "coder", "auditor", "summarizer")}
    settings: dict[str, Any] = {
        "base_url": url,
        **roles,
        "fallback_model": FALLBACK,
        "call_idle_s": 120.0,
        "resend_backoff_s": 0.5,
        **overrides,
    }
    return Context(**settings)


async def row(http: httpx.AsyncClient, url: str, model: str) -> dict[str, Any]:
    """The model's row of the gateway's ``/running``."""
    running = (await http.get(f"{url.removesuffix('/v1')}/running")).json()
    found: dict[str, Any] = next(m for m in running["models"] if m["name"] == model)
    return found


async def requests_by_outcome(http: httpx.AsyncClient, url: str, model: str) -> dict[str, int]:
    """``edgeswarm_gateway_requests_total`` of ``model``, by outcome."""
    text = (await http.get(f"{url.removesuffix('/v1')}/metrics")).text
    return {
        dict(labels)["outcome"]: int(value)
        for (name, labels), value in samples(text).items()
        if name == "edgeswarm_gateway_requests_total" and ("model", model) in labels
    }


async def wait_in_flight(http: httpx.AsyncClient, url: str, model: str, call: Any) -> None:
    """Until a request is on ``model``'s server (fails if ``call`` ended first)."""
    give_up = time.monotonic() + 60
    while (await row(http, url, model))["in_flight"] < 1:
        assert not call.done(), "the call ended before it reached the server"
        assert time.monotonic() < give_up, "no request reached the server"
        await asyncio.sleep(0.02)


async def ask_verdict(ctx: Context, **kwargs: Any) -> Answer[Verdict]:
    return await ask(ctx, "auditor", "auditor", Verdict, QUESTION, **kwargs)


@pytest.mark.timeout(400)
async def test_a_hung_real_server_meets_the_deadline_and_the_fallback_answers(
    gateway: str, http: httpx.AsyncClient
) -> None:
    """SIGSTOP freezes the bf16 server (all its processes): it takes the request and never
    answers. Its call stalls (no token, no work on the server) and is cut at call_idle_s; the
    fp32 fallback answers; woken, the server serves."""
    pid = (await row(http, gateway, PRIMARY))["pid"]
    before = await requests_by_outcome(http, gateway, PRIMARY)
    os.killpg(pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        answer = await ask_verdict(context(gateway, call_idle_s=15.0))
        seconds = time.monotonic() - started
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGCONT)
    assert answer.metrics.model == FALLBACK and answer.metrics.attempts == 2
    assert 15 <= seconds < 15 + 90, seconds  # the deadline, then one fp32 answer
    after = await requests_by_outcome(http, gateway, PRIMARY)
    assert after.get("client_disconnected", 0) == before.get("client_disconnected", 0) + 1
    again = await ask_verdict(context(gateway))  # nothing stayed stuck
    assert again.metrics.model == PRIMARY and (await row(http, gateway, PRIMARY))["pid"] == pid


@pytest.mark.timeout(400)
async def test_a_real_cut_off_answer_is_retried_larger_then_the_fallback_runs(
    gateway: str, http: httpx.AsyncClient
) -> None:
    """A budget far below the answer's length: vLLM stops at it (finish_reason=length); the
    call retries with 1.75x the budget, then asks the fallback; all cut off, the node fails
    naming each attempt. The schema's own budget then gives a valid answer."""
    primary = await requests_by_outcome(http, gateway, PRIMARY)
    fallback = await requests_by_outcome(http, gateway, FALLBACK)
    with pytest.raises(NodeFailedError) as failed:
        await ask_verdict(context(gateway), max_tokens=4)
    message = str(failed.value)
    assert message.startswith("auditor: ") and message.count("cut off") == 3, message
    assert failed.value.metrics.attempts == 3 and not failed.value.metrics.ok
    assert failed.value.metrics.completion_tokens == 4 + 7 + 7  # what vLLM generated, counted
    assert (await requests_by_outcome(http, gateway, PRIMARY))["ok"] == primary.get("ok", 0) + 2
    assert (await requests_by_outcome(http, gateway, FALLBACK))["ok"] == fallback.get("ok", 0) + 1
    answer = await ask_verdict(context(gateway))
    assert answer.metrics.model == PRIMARY and answer.value.answer in ("yes", "no")


def front_config(tmp_path: Path, upstream: str) -> Path:
    """A second gateway's config: ``PRIMARY`` is the real model behind the first gateway at
    ``upstream``, as a ``remote`` model, so killing this gateway leaves the model server
    running (the server's own port takes only the first gateway's secret)."""
    config = {
        "device": "cpu",
        "state_dir": str(tmp_path / "front-state"),
        "budget": {"bytes": GiB},
        "models": [{"name": PRIMARY, "backend": "remote", "url": upstream}],
    }
    path = tmp_path / "front.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


async def test_a_model_server_answers_only_its_gateway(
    gateway: str, http: httpx.AsyncClient
) -> None:
    """The real vLLM server's own loopback port refuses its /v1 routes without the secret the
    gateway holds (issue 41, finding 7); through the gateway it answers."""
    upstream = (await row(http, gateway, PRIMARY))["url"]
    direct = await http.get(f"{upstream}/models")
    assert direct.status_code == 401, direct.text
    via = await http.get(f"{gateway}/models")
    assert via.status_code == 200 and PRIMARY in via.text


@pytest.mark.timeout(400)
async def test_calls_in_flight_survive_a_gateway_killed_and_restarted(
    gateway: str, http: httpx.AsyncClient, tmp_path: Path
) -> None:
    """Three calls are on the real model when their gateway is SIGKILLed; a new gateway comes
    up on the same port; each call is resent and answered by its own model, no fallback."""
    config = front_config(tmp_path, gateway)
    with (
        gateway_process(config, tmp_path / "front.log") as process,
        structlog.testing.capture_logs() as logs,
    ):
        front = process.health_url.removesuffix("/health") + "/v1"
        ctx = context(front, fallback_model=None, resends=8)
        calls = [asyncio.create_task(ask_verdict(ctx)) for _ in range(3)]
        await wait_in_flight(http, front, PRIMARY, calls[0])
        assert process.pid is not None
        os.killpg(process.pid, signal.SIGKILL)
        process.stop()
        await asyncio.to_thread(process.start)
        answers = await asyncio.gather(*calls)
        served = await requests_by_outcome(http, front, PRIMARY)
    assert all(a.metrics.model == PRIMARY and a.metrics.attempts == 1 for a in answers)
    resent = [e["resends"] for e in logs if e["event"] == "node_done"]
    assert len(resent) == 3 and all(count >= 1 for count in resent), resent
    assert served.get("ok", 0) >= 3  # the resends reached the new gateway


@pytest.mark.timeout(600)
async def test_a_real_server_killed_under_a_call_falls_back_and_restarts_on_the_next(
    gateway: str, http: httpx.AsyncClient
) -> None:
    """SIGKILL of the bf16 server while it generates: the gateway marks it failed and fails
    the request clearly; with no resend allowed, the node falls back to fp32 at once. The next
    request for the bf16 model starts a new server."""
    pid = (await row(http, gateway, PRIMARY))["pid"]
    before = await requests_by_outcome(http, gateway, PRIMARY)
    with structlog.testing.capture_logs() as logs:
        call = asyncio.create_task(ask_verdict(context(gateway, resends=0)))
        await wait_in_flight(http, gateway, PRIMARY, call)
        os.killpg(pid, signal.SIGKILL)
        answer = await call
    assert answer.metrics.model == FALLBACK and answer.metrics.attempts == 2
    dead = await row(http, gateway, PRIMARY)
    assert dead["state"] == "failed" and dead["failure"], dead
    after = await requests_by_outcome(http, gateway, PRIMARY)
    assert after["model_unavailable"] == before.get("model_unavailable", 0) + 1
    assert [e["model"] for e in logs if e["event"] == "node_done"] == [FALLBACK]
    again = await ask_verdict(context(gateway))
    restarted = await row(http, gateway, PRIMARY)
    assert again.metrics.model == PRIMARY and again.metrics.swap_wait_s > 1.0  # a real start
    assert restarted["state"] == "ready" and restarted["pid"] not in (None, pid)
