"""The gateway against fake vLLM backends started as real processes on free ports.

The gateway runs in the test's event loop (uvicorn on a free port), so a ledger observer sees
every change of the accounting as it happens; a sampler also scans ``/proc`` for the fake
servers that are really alive. Both must stay within the budget at every moment.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import signal
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import structlog

from runtime.gateway.policies import DeviceView, GroupedPolicy, ModelState, ModelView
from runtime.gateway.service import GatewayService
from tests.fakes import fake_command
from tests.prometheus import sample, samples
from tests.support import ROOT
from tests.support.gateway import MB, Live, fake_model, live_gateway, write_config
from tests.support.network import allowed_port

SCHEMA = {
    "name": "verdict",
    "strict": True,
    "schema": {
        "type": "object",
        "properties": {"verdict": {"enum": ["pass", "fail"]}, "reason": {"type": "string"}},
        "required": ["verdict", "reason"],
        "additionalProperties": False,
    },
}


async def stream_text(live: Live, model: str, **extra: Any) -> str:
    payload = {"model": model, "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    payload |= extra
    text = ""
    async with live.http.stream("POST", f"{live.url}/v1/chat/completions", json=payload) as r:
        assert r.status_code == 200, await r.aread()
        async for line in r.aiter_lines():
            if line.startswith("data: ") and line != "data: [DONE]":
                chunk = json.loads(line[6:])
                assert "error" not in chunk, chunk
                if chunk["choices"]:  # (the usage event has none)
                    text += chunk["choices"][0]["delta"].get("content", "")
    return text


async def test_100_mixed_requests_over_3_models_with_a_budget_for_one(
    tmp_path: Path, tag: str
) -> None:
    models = [fake_model(n, tag, load_time=0.3, latency=0.05, tokens=20) for n in "abc"]
    config = write_config(tmp_path, models, 1000 * MB, max_wait_s=1.0, max_queue=200)
    rng = random.Random(4)
    async with live_gateway(config, tag) as live:

        async def one(i: int) -> str:
            await asyncio.sleep(rng.uniform(0, 3))
            model = rng.choice("abc")
            if i % 3 == 0:
                return await stream_text(live, model)
            reply = await live.chat(
                model, response_format={"type": "json_schema", "json_schema": SCHEMA}
            )
            assert reply.status_code == 200, reply.text
            content = json.loads(reply.json()["choices"][0]["message"]["content"])
            assert content["verdict"] in ("pass", "fail")
            return str(content)

        started = time.monotonic()
        async with asyncio.timeout(90):  # no deadlock
            answers = await asyncio.gather(*(one(i) for i in range(100)))
        seconds = time.monotonic() - started
        assert len(answers) == 100 and all(answers)
        running = await live.running()
    swaps = live.service.metrics.swap_count()
    most = live.most_in_flight
    sys.stderr.write(f"100 requests: {swaps} swaps, {seconds:.1f} s, {most} in flight at most\n")
    assert not live.violations and not live.service.ledger.violations
    assert live.worst_ledger <= live.budget and live.worst_real <= live.budget
    assert live.snapshots > 2 * swaps and live.worst_real > 0
    assert 3 <= swaps <= 15, f"{swaps} swaps for 100 requests"
    assert most > 5, "requests to a loaded model were serialized"
    assert running["budget_violations"] == 0


async def test_bodies_pass_through_unchanged_and_models_are_listed(tmp_path: Path) -> None:
    recorder = {
        "name": "rec",
        "backend": "command",
        "command": fake_command(model="rec", scripted=True),
        "footprint": 100 * MB,
    }
    config = write_config(tmp_path, [recorder], 1000 * MB)
    body = {
        "model": "rec",
        "messages": [{"role": "user", "content": "héllo"}],
        "response_format": {"type": "json_schema", "json_schema": SCHEMA},
        "structured_outputs": {"json": SCHEMA["schema"]},
        "max_tokens": 33,
        "temperature": 0,
        "seed": 7,
    }
    sampled = {"model": "rec", "messages": body["messages"], "temperature": 0.8, "seed": 3}
    async with live_gateway(config, "rec") as live:
        models = (await live.http.get(f"{live.url}/v1/models")).json()
        assert [m["id"] for m in models["data"]] == ["rec"]
        for sent in (body, sampled):
            reply = await live.http.post(f"{live.url}/v1/chat/completions", json=sent)
            assert reply.status_code == 200, reply.text
        upstream = (await live.model_info("rec"))["url"].removesuffix("/v1")
        seen = (await live.http.get(f"{upstream}/_fake/requests")).json()
    # a command's server on a CPU device may be a vLLM that chunks its prefills, which kills
    # its engine on a seeded sampled request: such a request loses its seed
    assert seen == [body, {k: v for k, v in sampled.items() if k != "seed"}]


async def test_streaming_completions_and_concurrency(tmp_path: Path, tag: str) -> None:
    config = write_config(tmp_path, [fake_model("a", tag, token_rate=40, tokens=20)], 1000 * MB)
    async with live_gateway(config, tag) as live:
        assert await stream_text(live, "a") == "fake answer from a"
        payload: dict[str, Any] = {"model": "a", "prompt": "x"}
        reply = await live.http.post(f"{live.url}/v1/completions", json=payload)
        assert reply.json()["choices"][0]["text"] == "fake answer from a"
        usage = {"stream_options": {"include_usage": True}}
        assert await stream_text(live, "a", **usage) == "fake answer from a"
        # the status page's last requests (the request log's): tokens from the answer's
        # usage where it has one, else the stream's content events, estimated
        shown = (await live.http.get(f"{live.url}/ui/status")).json()["requests"]
        tokens = [
            (r["prompt_tokens"], r["completion_tokens"], r["tokens_estimated"]) for r in shown
        ]
        assert tokens[0][0] is None and tokens[0][2] is True
        assert tokens[1:] == [(5, 20, False), (5, 20, False)]
        # Eight concurrent requests to a loaded model all run at once upstream (no mutex).
        replies = await asyncio.gather(*(live.chat("a") for _ in range(8)))
        assert all(r.status_code == 200 for r in replies)
        upstream = (await live.model_info("a"))["url"].removesuffix("/v1")
        info = (await live.http.get(f"{upstream}/_fake/info")).json()
        # A client that leaves mid-stream releases its admission.
        payload["stream"] = True
        async with live.http.stream("POST", f"{live.url}/v1/completions", json=payload) as r:
            async for _ in r.aiter_bytes():
                break
        deadline = time.monotonic() + 3
        while live.service.slots["a"].in_flight:
            assert time.monotonic() < deadline, "the abandoned stream kept its admission"
            await asyncio.sleep(0.05)
        metrics = (await live.http.get(f"{live.url}/metrics")).text
    assert info["max_in_flight"] == 8
    # the two streams' first chunks, and every finished request's time, as distributions
    assert sample(metrics, "edgeswarm_gateway_time_to_first_token_seconds_count", model="a") == 3
    latency = "edgeswarm_gateway_request_duration_seconds_count"
    assert sample(metrics, latency, model="a", outcome="ok") == 11  # answered
    assert sample(metrics, latency, model="a", outcome="client_disconnected") == 1  # left
    assert (sample(metrics, "edgeswarm_gateway_queue_wait_seconds_count", model="a") or 0) >= 12


async def test_routing_errors_are_clear(tmp_path: Path, tag: str) -> None:
    config = write_config(tmp_path, [fake_model("a", tag)], 1000 * MB)
    async with live_gateway(config, tag) as live:
        unknown = await live.chat("nope")
        assert unknown.status_code == 404 and "known: a" in unknown.json()["error"]["message"]
        bad = await live.http.post(f"{live.url}/v1/chat/completions", content=b"{not json")
        assert bad.status_code == 400
        assert bad.json()["error"]["message"] == "the request body is not JSON", bad.text
        listed = await live.http.post(f"{live.url}/v1/completions", json=["model", "a"])
        assert listed.status_code == 400 and "JSON object" in listed.json()["error"]["message"]
        nameless = await live.http.post(f"{live.url}/v1/chat/completions", json={"x": 1})
        assert nameless.status_code == 400 and "model" in nameless.json()["error"]["message"]
        assert (await live.http.post(f"{live.url}/models/nope/load")).status_code == 404
        for name, status in (("../x", 400), ("a/b", 404), ("a\x00b", 400), ("a\n", 400)):
            reply = await live.chat(name)
            assert reply.status_code == status, reply.text
            assert repr(name) in reply.json()["error"]["message"]
        for path, status in (("a%2Fb", 404), ("a/b", 404), ("..%2Fx", 400), ("a%0A", 404)):
            reply = await live.http.post(f"{live.url}/models/{path}/load")
            assert reply.status_code == status, (path, reply.text)
            assert reply.json()["error"]["message"], reply.text
        nowhere = await live.http.get(f"{live.url}/v1/chat/completions")
        assert nowhere.status_code == 405 and "no route for GET" in nowhere.text


async def test_load_and_unload_routes_and_the_idle_ttl(tmp_path: Path, tag: str) -> None:
    models = [fake_model("a", tag), fake_model("b", tag)]
    config = write_config(tmp_path, models, 1000 * MB, idle_ttl_s=1.0)
    async with live_gateway(config, tag) as live:
        loaded = await live.http.post(f"{live.url}/models/a/load")
        assert loaded.status_code == 200 and loaded.json()["state"] == "ready"
        assert (await live.model_info("a"))["resident_bytes"] == 600 * MB
        unloaded = await live.http.post(f"{live.url}/models/a/unload")
        assert unloaded.json() == {"model": "a", "state": "stopped"}
        await live.http.post(f"{live.url}/models/b/load")
        deadline = time.monotonic() + 5
        while (await live.model_info("b"))["state"] != "stopped":
            assert time.monotonic() < deadline, "the idle model was not unloaded"
            await asyncio.sleep(0.1)
        metrics = (await live.http.get(f"{live.url}/metrics")).text
    assert sample(metrics, "edgeswarm_gateway_swaps_total", model="b", kind="load") == 1
    assert sample(metrics, "edgeswarm_gateway_resident_bytes") == 0
    assert sample(metrics, "edgeswarm_gateway_budget_bytes") == 1000 * MB
    duration = "edgeswarm_gateway_swap_duration_seconds_count"
    assert sample(metrics, duration, model="b", kind="load") == 1


async def test_a_full_queue_answers_429_with_retry_after(tmp_path: Path, tag: str) -> None:
    config = write_config(tmp_path, [fake_model("a", tag, load_time=1.5)], 1000 * MB, max_queue=3)
    async with live_gateway(config, tag) as live:
        replies = await asyncio.gather(*(live.chat("a") for _ in range(8)))
        codes = sorted(r.status_code for r in replies)
        assert codes.count(200) == 3 and codes.count(429) == 5
        rejected = next(r for r in replies if r.status_code == 429)
        assert int(rejected.headers["retry-after"]) >= 1
        assert "queue is full" in rejected.json()["error"]["message"]


async def test_every_request_has_a_deadline(tmp_path: Path, tag: str) -> None:
    models = [fake_model("slow", tag, load_time=3.0, request_timeout_s=1.0)]
    async with live_gateway(write_config(tmp_path, models, 1000 * MB), tag) as live:
        reply = await live.chat("slow")
        assert reply.status_code == 504 and "deadline" in reply.json()["error"]["message"]


async def test_a_killed_backend_is_marked_failed_and_restarted_by_the_next_request(
    tmp_path: Path, tag: str
) -> None:
    models = [fake_model("a", tag, tokens=200, token_rate=100)]  # 2 s answers
    async with live_gateway(write_config(tmp_path, models, 1000 * MB), tag) as live:
        await live.http.post(f"{live.url}/models/a/load")
        pid = (await live.model_info("a"))["pid"]
        in_flight = asyncio.create_task(live.chat("a"))
        await asyncio.sleep(0.5)
        os.killpg(pid, signal.SIGKILL)
        cut = await in_flight
        assert cut.status_code in (502, 503)
        assert "died" in cut.json()["error"]["message"], cut.text
        deadline = time.monotonic() + 3
        while (info := await live.model_info("a"))["state"] != "failed":
            assert info["state"] == "stopping" and time.monotonic() < deadline, info
            await asyncio.sleep(0.05)
        assert info["failure"]
        again = await live.chat("a")
        assert again.status_code == 200, again.text
        info = await live.model_info("a")
        assert info["state"] == "ready" and info["pid"] != pid
    assert live.service.metrics.swaps[("a", "load")] == 2


async def test_a_swap_drains_in_flight_requests_then_fails_the_stragglers(
    tmp_path: Path, tag: str
) -> None:
    models = [
        fake_model("long", tag, tokens=1000, token_rate=100),  # 10 s
        fake_model("short", tag),
    ]
    config = write_config(tmp_path, models, 1000 * MB, max_wait_s=0.2, drain_timeout_s=0.5)
    async with live_gateway(config, tag) as live:
        await live.http.post(f"{live.url}/models/long/load")
        straggler = asyncio.create_task(live.chat("long"))
        await asyncio.sleep(0.3)
        quick = await live.chat("short")
        assert quick.status_code == 200
        cut = await straggler
        assert cut.status_code == 503
        assert "drain timeout" in cut.json()["error"]["message"]


async def test_sleep_mode_swaps_warm_and_accounts_host_ram(tmp_path: Path, tag: str) -> None:
    models = [
        fake_model(n, tag, swap="sleep", sleep_footprint=200 * MB, load_time=0.5) for n in "ab"
    ]
    config = write_config(tmp_path, models, 1000 * MB, device="cuda")  # NVML absent: degrades
    async with live_gateway(config, tag) as live:
        assert (await live.chat("a")).status_code == 200
        assert (await live.chat("b")).status_code == 200
        info = await live.model_info("a")
        assert info["state"] == "sleeping" and info["host_bytes"] == 200 * MB
        assert (await live.chat("a")).status_code == 200  # woken, not restarted
        swaps = live.service.metrics.swaps
    assert swaps[("a", "load")] == 1 and swaps[("a", "wake")] == 1 and swaps[("b", "sleep")] == 1


async def test_remote_models_are_routed_never_swapped_nor_counted(tmp_path: Path, tag: str) -> None:
    port = allowed_port()
    remote = {"name": "far", "backend": "remote", "url": f"http://127.0.0.1:{port}/v1"}
    remote["served_name"] = "upstream-name"
    models = [remote, fake_model("a", tag)]
    config = write_config(tmp_path, models, 1000 * MB)
    fake = await asyncio.create_subprocess_exec(
        *fake_command(port, "upstream-name"), start_new_session=True
    )
    try:
        async with live_gateway(config, tag) as live:
            for _ in range(100):
                try:
                    await live.http.get(f"http://127.0.0.1:{port}/health")
                    break
                except httpx.ConnectError:
                    await asyncio.sleep(0.05)
            await live.chat("a")
            reply = await live.chat("far")
            info = await live.model_info("far")
            assert live.service.ledger.device == {"a": 600 * MB}
    finally:
        fake.terminate()
        await fake.wait()
    assert reply.status_code == 200, reply.text
    assert info["state"] == "remote" and info["resident_bytes"] == 0


async def test_a_sleeping_model_past_the_sleep_ttl_is_stopped(tmp_path: Path, tag: str) -> None:
    models = [fake_model("a", tag, swap="sleep", sleep_footprint=200 * MB)]
    config = write_config(
        tmp_path, models, 1000 * MB, device="cuda", idle_ttl_s=0.3, sleep_ttl_s=1.5
    )
    async with live_gateway(config, tag) as live:
        assert (await live.chat("a")).status_code == 200
        states = []
        deadline = time.monotonic() + 6
        while (info := await live.model_info("a"))["state"] != "stopped":
            assert time.monotonic() < deadline, f"still {info['state']}"
            states.append((info["state"], info["host_bytes"]))
            await asyncio.sleep(0.05)
        assert ("sleeping", 200 * MB) in states
        assert info["host_bytes"] == 0 and live.service.ledger.host_used == 0
        assert (await live.chat("a")).status_code == 200  # a fresh start, not a wake
    assert live.service.metrics.swaps[("a", "load")] == 2


def measured_as(sizes: dict[str, int], live_tag: str) -> Any:
    """A footprint probe that reports ``sizes[model]`` for the fake server of that model."""

    def probe(pgid: int | None, device: Any, gpu_index: int = 0, since: Any = None) -> int | None:
        del device, gpu_index, since
        argv = (Path("/proc") / str(pgid) / "cmdline").read_bytes().split(b"\0")
        assert live_tag.encode() in argv
        return sizes.get(argv[argv.index(b"--model") + 1].decode())

    return probe


async def test_a_footprint_measured_above_the_declared_one_evicts_to_stay_in_budget(
    tmp_path: Path, tag: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        "runtime.gateway.residency.measure_footprint", measured_as({"a": 500 * MB}, tag)
    )
    models = [fake_model("a", tag, footprint=300 * MB), fake_model("b", tag)]
    config = write_config(tmp_path, models, 1000 * MB, device="cuda")
    async with live_gateway(config, tag) as live:
        assert (await live.chat("b")).status_code == 200
        assert (await live.chat("a")).status_code == 200  # 300 MB declared fits beside b ...
        a, b = await live.model_info("a"), await live.model_info("b")
        assert a["resident_bytes"] == 500 * MB and a["footprint_bytes"] == 500 * MB
        assert b["state"] == "stopped"  # ... 500 MB measured does not: b made room
        assert live.service.ledger.violations == [] and live.violations == []
        assert (await live.chat("b")).status_code == 200  # a's measured size now counts
        assert (await live.model_info("a"))["state"] == "stopped"


class _Contrary(GroupedPolicy):
    """Picks the resident model the gateway's own policy would not, and notes each choice."""

    def __init__(self) -> None:
        self.chosen: list[tuple[str, ...]] = []

    def victims(self, target: ModelView, view: DeviceView, now: float) -> tuple[str, ...] | None:
        usual = super().victims(target, view, now)
        if not usual:
            return usual
        others = [m.name for m in view.resident() if m.name not in usual]
        picked = (others[0],) if others else usual
        self.chosen.append(picked)
        return picked


async def test_a_load_measured_larger_evicts_what_the_policy_picks(
    tmp_path: Path, tag: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The residency makes room for a larger measured footprint only by asking the policy."""
    monkeypatch.setattr(
        "runtime.gateway.residency.measure_footprint", measured_as({"a": 500 * MB}, tag)
    )
    models = [
        fake_model("a", tag, footprint=300 * MB),
        fake_model("b", tag, footprint=300 * MB),
        fake_model("c", tag, footprint=300 * MB),
    ]
    config = write_config(tmp_path, models, 1000 * MB, device="cuda")
    async with live_gateway(config, tag) as live:
        assert (await live.chat("b")).status_code == 200
        assert (await live.chat("c")).status_code == 200
        usual = live.service.scheduler.room_for(live.service.slots["a"], 500 * MB)
        assert usual is not None and len(usual.victims) == 1  # the gateway's own choice
        contrary = _Contrary()
        live.service.scheduler.policy = contrary
        assert (await live.chat("a")).status_code == 200  # 300 MB declared fits; 500 not
        assert contrary.chosen and contrary.chosen[-1] != usual.victims
        (picked,) = contrary.chosen[-1]
        states = {name: (await live.model_info(name))["state"] for name in ("a", "b", "c")}
        kept = ({"b", "c"} - {picked}).pop()
        assert states == {"a": "ready", picked: "stopped", kept: "ready"}
        assert live.service.ledger.violations == [] and live.violations == []


async def test_a_model_measured_above_the_budget_fails_clearly(
    tmp_path: Path, tag: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        "runtime.gateway.residency.measure_footprint", measured_as({"a": 1500 * MB}, tag)
    )
    config = write_config(tmp_path, [fake_model("a", tag)], 1000 * MB, device="cuda")
    async with live_gateway(config, tag) as live:
        reply = await live.chat("a")
        assert reply.status_code == 503, reply.text
        message = reply.json()["error"]["message"]
        assert "declared footprint" in message and "1500000000" in message
        info = await live.model_info("a")
        assert info["state"] == "failed" and info["pid"] is None and info["resident_bytes"] == 0
        assert live.service.ledger.violations == []


async def test_a_client_that_leaves_gives_up_its_upstream_request_and_its_queue_place(
    tmp_path: Path, tag: str
) -> None:
    models = [
        fake_model("long", tag, tokens=1000, token_rate=100),
        fake_model("slow", tag, load_time=3),
    ]
    config = write_config(tmp_path, models, 2000 * MB)
    async with live_gateway(config, tag) as live:
        await live.http.post(f"{live.url}/models/long/load")
        for model, field_ in (("long", "in_flight"), ("slow", "queued")):
            leaving = asyncio.create_task(live.chat(model))  # a 10 s answer / a 3 s load
            deadline = time.monotonic() + 5
            while (await live.model_info(model))[field_] != 1:
                assert time.monotonic() < deadline, f"{model} never had the request"
                await asyncio.sleep(0.05)
            leaving.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await leaving
            deadline = time.monotonic() + 2
            while (await live.model_info(model))[field_] != 0:
                assert time.monotonic() < deadline, f"{model} still holds the request"
                await asyncio.sleep(0.05)
        metrics = (await live.http.get(f"{live.url}/metrics")).text
    requests = "edgeswarm_gateway_requests_total"
    assert sample(metrics, requests, model="long", outcome="client_disconnected") == 1
    assert sample(metrics, requests, model="slow", outcome="client_disconnected") == 1


async def test_a_model_that_fails_to_start_is_not_restarted_by_every_request(
    tmp_path: Path, tag: str
) -> None:
    broken = {**fake_model("broken", tag), "command": [sys.executable, "-c", "raise SystemExit(3)"]}
    config = write_config(tmp_path, [broken], 1000 * MB, start_retry_s=1.0)
    async with live_gateway(config, tag) as live:
        first = await live.chat("broken")
        assert first.status_code == 503 and "failed to start" in first.text
        again = await live.chat("broken")  # at once: refused without a second start
        assert again.status_code == 503 and int(again.headers["retry-after"]) == 1
        assert "the next start is tried in" in again.json()["error"]["message"]
        assert live.service.metrics.swaps[("broken", "load_failed")] == 1
        await asyncio.sleep(1.1)
        later = await live.chat("broken")  # the cool-down is over: started again
        assert later.status_code == 503 and "failed to start" in later.text
        assert live.service.metrics.swaps[("broken", "load_failed")] == 2


async def test_a_sleeping_model_keeps_its_declared_remains_on_the_device(
    tmp_path: Path, tag: str
) -> None:
    """NVML cannot measure here (no GPU): what a sleeping server keeps on the device is the
    declared ``sleep_device_footprint``; it counts while asleep and is part of the footprint
    again once woken."""
    models = [
        fake_model(n, tag, swap="sleep", sleep_footprint=200 * MB, sleep_device_footprint=250 * MB)
        for n in "ab"
    ]
    config = write_config(tmp_path, models, 1000 * MB, device="cuda")
    async with live_gateway(config, tag) as live:
        assert (await live.chat("a")).status_code == 200
        assert (await live.chat("b")).status_code == 200
        a = await live.model_info("a")
        assert a["state"] == "sleeping" and a["resident_bytes"] == 250 * MB
        assert live.service.ledger.device == {"a": 250 * MB, "b": 600 * MB}
        assert (await live.chat("a")).status_code == 200  # woken: b sleeps, a is whole again
        assert live.service.ledger.device == {"a": 600 * MB, "b": 250 * MB}
        swaps = live.service.metrics.swaps
    assert swaps[("a", "wake")] == 1 and swaps[("a", "load")] == 1
    assert live.service.ledger.violations == [] and live.worst_ledger <= live.budget


async def test_remains_measured_above_the_expected_stop_a_sleeping_model_to_make_room(
    tmp_path: Path, tag: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On CUDA each sleep is measured. Slept to make room for ``c``, ``b`` keeps 300 MB, not
    the 0 expected: the load does not fit yet, so a second round stops a sleeping model.
    The ledger never exceeds the budget."""
    service: list[GatewayService] = []

    def probe(pgid: int | None, device: Any, gpu_index: int = 0, since: Any = None) -> int | None:
        del device, gpu_index, since
        argv = (Path("/proc") / str(pgid) / "cmdline").read_bytes().split(b"\0")
        slot = service[0].slots[argv[argv.index(b"--model") + 1].decode()]
        asleep = slot.state is ModelState.STOPPING  # measured right after its sleep
        return 300 * MB if asleep else slot.footprint

    monkeypatch.setattr("runtime.gateway.residency.measure_footprint", probe)
    models = [fake_model(n, tag, swap="sleep", sleep_footprint=200 * MB) for n in "ab"]
    models.append(fake_model("c", tag, footprint=500 * MB))
    config = write_config(tmp_path, models, 1000 * MB, device="cuda")
    with structlog.testing.capture_logs() as logs:
        async with live_gateway(config, tag) as live:
            service.append(live.service)
            assert (await live.chat("a")).status_code == 200
            assert (await live.chat("b")).status_code == 200  # a sleeps, keeps 300 MB
            assert live.service.ledger.device == {"a": 300 * MB, "b": 600 * MB}
            assert (await live.chat("c")).status_code == 200  # needs 400 MB more
            states = {name: (await live.model_info(name))["state"] for name in "abc"}
            held = dict(live.service.ledger.device)
    assert states["c"] == "ready" and sorted(states.values()) == ["ready", "sleeping", "stopped"]
    asleep = next(name for name, state in states.items() if state == "sleeping")
    assert held == {asleep: 300 * MB, "c": 500 * MB}
    stopped = [e for e in logs if e["event"] == "unload" and e["reason"] == "make room for c"]
    [gone] = stopped  # a sleeping model, stopped: its remains and its host RAM freed
    assert gone["model"] != asleep and states[gone["model"]] == "stopped"
    assert gone["bytes"] == 300 * MB + 200 * MB
    assert live.service.ledger.violations == [] and live.worst_ledger <= live.budget


async def test_every_metric_the_grafana_dashboard_plots_is_on_the_page(
    tmp_path: Path, tag: str
) -> None:
    dashboard = json.loads((ROOT / "examples" / "grafana-gateway.json").read_text())
    exprs = [t["expr"] for panel in dashboard["panels"] for t in panel["targets"]]
    plotted = {name for expr in exprs for name in re.findall(r"edgeswarm_gateway_\w+", expr)}
    config = write_config(tmp_path, [fake_model("a", tag)], 1000 * MB)
    async with live_gateway(config, tag) as live:
        assert await stream_text(live, "a") == "fake answer from a"  # one of each distribution
        await live.http.post(f"{live.url}/models/a/unload")  # a stop: a second swap kind
        text = (await live.http.get(f"{live.url}/metrics")).text
    on_page = {name for name, _ in samples(text)}  # parsed by prometheus_client itself
    assert plotted and plotted <= on_page, plotted - on_page
