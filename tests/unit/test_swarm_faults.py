"""Fault injection: whole swarm runs through the gateway while model servers die or hang and
the gateway itself is killed and restarted. The backends are the fake vLLM server with canned
answers for the agents' schemas, started by the gateway; every test has a pytest timeout, so
nothing may wait forever.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import structlog

from graphs.context import Context
from graphs.state import OutputState
from tests.support.gateway import (
    MB,
    Live,
    gateway_process,
    live_fakes,
    live_gateway,
    write_config,
)
from tests.support.swarm import swarm_models, swarm_run


def swarm_context(url: str, **overrides: Any) -> Context:
    """The coder on ``big``, every other role and the fallback on ``small``."""
    settings: dict[str, Any] = {
        "base_url": f"{url}/v1",
        "researcher_model": "small",
        "coder_model": "big",
        "auditor_model": "small",
        "summarizer_model": "small",
        "fallback_model": "small",
        "max_revisions": 0,
        "candidates": 1,  # one coder request, so each fault meets exactly one call
        "resend_backoff_s": 0.1,
        **overrides,
    }
    return Context(**settings)


def coder_metric(state: OutputState) -> Any:
    [metric] = [m for m in state.metrics if m.node == "coder"]
    return metric


async def kill_when_busy(live: Live, model: str, run: asyncio.Task[Any], times: int) -> list[int]:
    """SIGKILL ``model``'s server whenever a request is in flight on it, ``times`` times."""
    killed: list[int] = []
    slot = live.service.slots[model]
    while not run.done() and len(killed) < times:
        pid = slot.backend.pid
        if slot.in_flight and pid is not None and pid not in killed:
            os.killpg(pid, signal.SIGKILL)
            killed.append(pid)
        await asyncio.sleep(0.02)
    return killed


@pytest.mark.timeout(90)
@pytest.mark.parametrize("times", [1, 10], ids=["killed-once", "killed-every-time"])
async def test_a_model_server_killed_under_the_coder(tmp_path: Path, tag: str, times: int) -> None:
    """Killed once: the gateway marks it failed, the call is resent and the resend restarts it.
    Killed on every request: after the bounded resends the coder falls back to ``small``."""
    # Each answer takes 3 s: the kill (polled every 20 ms) must land before it. At 1 s a loaded
    # machine once let an answer end first, so the server died with no request on it (lost 0).
    models = swarm_models(tmp_path, tag, {"big": {"latency": 3.0}, "small": {}})
    config = write_config(tmp_path, models, 2000 * MB)
    with structlog.testing.capture_logs() as logs:
        async with live_gateway(config, tag) as live:
            run = asyncio.create_task(swarm_run(swarm_context(live.url, resends=1)))
            killed = await kill_when_busy(live, "big", run, times)
            state = await run
            again = await live.chat("big")  # the next request restarts a failed server
            info = await live.model_info("big")
    assert state.status == "done" and state.report is not None, state.error
    assert state.report.outcome == "approved"
    failed = [e for e in logs if e["event"] == "model_failed"]
    assert len(failed) == len(killed) and all(e["model"] == "big" for e in failed)
    # the killed request fails clearly: the watcher saw the death first (model_unavailable) or
    # the proxy saw the connection drop first (upstream_error; seen on a loaded machine)
    requests = live.service.metrics.requests
    lost = requests[("big", "model_unavailable")] + requests[("big", "upstream_error")]
    assert lost == len(killed)
    coder = coder_metric(state)
    if times == 1:
        assert coder.model == "big" and coder.attempts == 1  # resent, not a new attempt
    else:
        assert len(killed) == 2  # the first request and its one resend
        assert coder.model == "small" and coder.attempts == 2
    assert again.status_code == 200 and info["state"] == "ready" and info["pid"] not in killed
    assert live.service.metrics.swaps[("big", "load")] == len(killed) + 1
    # the gateway's request log names the node behind each call and its lease
    big = [r for r in live.service.request_log.since() if r.model == "big" and r.kind != "load"]
    assert any(r.caller == "edgeswarm/coder" for r in big), [r.caller for r in big]
    leases = [r for r in live.service.request_log.since() if r.kind == "load"]
    assert leases and all((r.caller or "").startswith("edgeswarm/") for r in leases)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("deadline", ["node", "gateway"])
async def test_a_hung_model_server_meets_a_deadline_and_the_fallback_answers(
    tmp_path: Path, tag: str, deadline: str
) -> None:
    """``big`` accepts the request and never answers: the call stalls (no token, no work on
    the server) and is cut at its idle limit, or the gateway's hard request cap (504) fires;
    then the fallback runs."""
    hung: dict[str, Any] = {"latency": 3600}
    overrides: dict[str, Any] = {"call_idle_s": 2.0}
    if deadline == "gateway":
        hung["request_timeout_s"] = 3.0
        overrides["call_idle_s"] = 30.0
    models = swarm_models(tmp_path, tag, {"big": hung, "small": {}})
    config = write_config(tmp_path, models, 2000 * MB)
    async with live_gateway(config, tag) as live:
        for name in ("big", "small"):  # loaded: the deadlines measure answers, not loads
            assert (await live.http.post(f"{live.url}/models/{name}/load")).status_code == 200
        started = time.monotonic()
        state = await swarm_run(swarm_context(live.url, **overrides))
        seconds = time.monotonic() - started
        slot = live.service.slots["big"]
        give_up = time.monotonic() + 5
        while slot.in_flight:  # the abandoned request does not hold the model
            assert time.monotonic() < give_up, "the hung request still holds its admission"
            await asyncio.sleep(0.05)
    assert state.status == "done" and state.report is not None, state.error
    assert state.report.outcome == "approved"
    coder = coder_metric(state)
    assert coder.model == "small" and coder.attempts == 2  # no second try on the hung model
    assert seconds < 20
    outcome = "deadline_exceeded" if deadline == "gateway" else "client_disconnected"
    assert live.service.metrics.requests[("big", outcome)] == 1


async def wait_for_in_flight(http: httpx.AsyncClient, url: str) -> None:
    give_up = time.monotonic() + 30
    while True:
        running = (await http.get(f"{url}/running")).json()
        if any(m["in_flight"] for m in running["models"]):
            return
        assert time.monotonic() < give_up, "no request reached the gateway"
        await asyncio.sleep(0.02)


@pytest.mark.timeout(120)
async def test_runs_in_flight_survive_a_gateway_killed_and_restarted(
    tmp_path: Path, tag: str
) -> None:
    models = swarm_models(tmp_path, tag, {"big": {}, "small": {}}, latency=0.5)
    config = write_config(tmp_path, models, 2000 * MB)
    with gateway_process(config, tmp_path / "gateway.log") as gateway:
        url = gateway.health_url.removesuffix("/health")
        context = swarm_context(url, resends=6, resend_backoff_s=0.2)
        async with httpx.AsyncClient(trust_env=False) as http:
            runs = [asyncio.create_task(swarm_run(context)) for _ in range(4)]
            await wait_for_in_flight(http, url)
            assert gateway.pid is not None
            os.killpg(gateway.pid, signal.SIGKILL)
            gateway.stop()
            await asyncio.to_thread(gateway.start)  # the same port, a fresh gateway
            states = await asyncio.gather(*runs)
            running = (await http.get(f"{url}/running")).json()
    # Without resends the broken call and every later attempt would fail at once on the dead
    # port (the restart takes seconds) and the runs would end failed.
    for state in states:
        assert state.status == "done" and state.report is not None, state.error
        assert state.report.outcome == "approved"
        assert coder_metric(state).model == "big"  # resent to its model, no fallback needed
    assert running["swaps"] > 0  # the new gateway loaded the models again
    give_up = time.monotonic() + 10
    while live_fakes(tag):  # the killed gateway's servers follow it (PR_SET_PDEATHSIG)
        assert time.monotonic() < give_up, "servers outlived their gateway"
        await asyncio.sleep(0.1)
