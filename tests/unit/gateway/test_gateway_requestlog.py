"""Per-request records (:mod:`runtime.gateway.requestlog`): the ring, the fields, ``GET /logs``."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, MutableMapping
from pathlib import Path
from typing import Any

import httpx
import pytest
import structlog

from runtime.gateway.errors import QueueFullError, UnknownModelError
from runtime.gateway.metrics import GatewayMetrics
from runtime.gateway.requestlog import (
    CALLER_HEADER,
    NDJSON,
    Caller,
    RequestLog,
    RequestRecord,
)
from tests.support.gateway import (
    MB,
    TOKEN,
    fake_model,
    live_gateway,
    with_token_file,
    write_config,
)
from tests.unit.gateway.sse_events import DONE, piece, sse

FIELDS = {
    "seq",
    "id",
    "at",
    "kind",
    "model",
    "caller",
    "client",
    "stream",
    "status",
    "outcome",
    "reason",
    "duration_s",
    "queue_wait_s",
    "swap_wait_s",
    "ttft_s",
    "prompt_tokens",
    "completion_tokens",
    "tokens_estimated",
    "tokens_per_s",
}
"""Every field of a record, as ``GET /logs`` and the ``request`` log event carry them."""


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


USAGE = sse({"choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 12}})


def lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line]


@pytest.fixture
def captured() -> Iterator[list[MutableMapping[str, Any]]]:
    with structlog.testing.capture_logs() as logs:
        yield logs


# -- the ring and the records, alone ------------------------------------------------------


def test_the_ring_keeps_only_the_newest_records() -> None:
    log = RequestLog(size=3)
    for n in range(5):
        log.trace("chat", f"m{n}").finish(200, "ok")
    assert [r.seq for r in log.ring] == [3, 4, 5]
    assert [r.model for r in log.since()] == ["m2", "m3", "m4"]
    assert [r.seq for r in log.since(after=4)] == [5]
    assert log.since(after=5) == []
    assert [r.seq for r in log.since(tail=2)] == [4, 5]
    assert [r.seq for r in log.since(after=1, tail=10)] == [3, 4, 5]  # 2 was dropped


def test_a_streamed_record_has_its_waits_first_token_and_usage(
    captured: list[MutableMapping[str, Any]],
) -> None:
    metrics = GatewayMetrics()
    log = RequestLog(metrics)
    clock = Clock()
    caller = Caller.of({CALLER_HEADER: "run-7/coder", "user-agent": "httpx"}, "10.0.0.2")
    trace = log.trace("chat", "a", caller, stream=True, clock=clock)
    # a load ran during 1 s of the 2 s wait; another step ran long after it: not counted
    metrics.swap_log.append((trace.at + 0.5, trace.at + 1.5))  # a load
    metrics.swap_log.append((trace.at + 55, trace.at + 60))  # a stop
    clock.now += 2.0
    trace.admitted()
    clock.now += 0.5
    for chunk in (piece("he"), piece("llo"), USAGE[:10]):  # an event split across chunks
        trace.chunk(chunk)
    clock.now += 1.5
    trace.chunk(USAGE[10:] + DONE)
    record = trace.finish(200, "ok")
    assert record is not None
    assert trace.finish(502, "upstream_error") is None  # a record ends once
    assert record.as_dict().keys() == FIELDS
    assert (record.kind, record.model, record.stream) == ("chat", "a", True)
    assert (record.caller, record.client) == ("run-7/coder", "10.0.0.2")
    assert (record.status, record.outcome, record.reason) == (200, "ok", None)
    assert (record.duration_s, record.queue_wait_s, record.ttft_s) == (4.0, 2.0, 2.5)
    assert record.swap_wait_s == pytest.approx(1.0, abs=0.01)
    assert (record.prompt_tokens, record.completion_tokens) == (7, 12)
    assert not record.tokens_estimated
    assert record.tokens_per_s == 6.0  # 12 tokens over the 2 s since admission
    assert metrics.tokens[("a", "prompt")] == 7 and metrics.tokens[("a", "completion")] == 12
    assert list(log.ring) == [record]
    events = [e for e in captured if e["event"] == "request"]
    assert len(events) == 1 and events[0]["id"] == record.id and events[0]["ttft_s"] == 2.5


def test_a_long_queue_wait_counts_every_swap_step_it_spans() -> None:
    """Forty swap steps of 0.5 s in one 40 s wait: 20 s of swap wait (the page keeps 20)."""
    metrics = GatewayMetrics()
    log = RequestLog(metrics)
    clock = Clock()
    trace = log.trace("chat", "a", None, clock=clock)
    for step in range(40):
        metrics.swap(f"m{step % 3}", "load" if step % 2 else "stop", 0.0)
        metrics.swap_log[-1] = (trace.at + step + 0.25, trace.at + step + 0.75)
    metrics.swap("m0", "sleep_failed", 0.0)  # not a step that holds a queue
    clock.now += 40.0
    trace.admitted()
    record = trace.finish(200, "ok")
    assert record is not None
    assert record.swap_wait_s == 20.0
    assert len(metrics.recent_swaps) == 20 and len(metrics.swap_log) == 40


def test_each_request_is_counted_once_by_its_record() -> None:
    metrics = GatewayMetrics()
    log = RequestLog(metrics)
    for kind, model, status, outcome in (
        ("chat", "a", 200, "ok"),
        ("completion", "a", 429, "queue_full"),
        ("load", "a", 200, "ok"),  # a lease's load call: not a request to the model
        ("chat", "nope", 404, "model_not_found"),  # a client's name: no series for it
    ):
        trace = log.trace(kind, model, None, clock=Clock())
        trace.finish(status, outcome, usage=(3, 4) if kind == "chat" else None)
    assert metrics.requests == {("a", "ok"): 1, ("a", "queue_full"): 1}
    assert (metrics.tokens[("a", "prompt")], metrics.tokens[("a", "completion")]) == (3, 4)
    assert ("nope", "prompt") not in metrics.tokens


def test_a_stream_without_usage_counts_its_content_events_as_an_estimate() -> None:
    metrics = GatewayMetrics()
    log = RequestLog(metrics)
    clock = Clock()
    trace = log.trace("chat", "a", stream=True, clock=clock)
    trace.admitted()
    role = sse({"choices": [{"delta": {"role": "assistant", "content": ""}}]})
    quoted = piece('say "content": "x"')  # the key spelled in the text counts once
    for chunk in (role, piece("one"), quoted, piece("three"), DONE):
        trace.chunk(chunk)
    clock.now += 1.0
    record = trace.finish(200, "ok")
    assert record is not None
    assert (record.prompt_tokens, record.completion_tokens) == (None, 3)
    assert record.tokens_estimated and record.tokens_per_s == 3.0
    assert not metrics.tokens  # the token counters count reported usage only


def test_a_whole_answer_takes_the_usage_it_is_given() -> None:
    log = RequestLog(GatewayMetrics())
    clock = Clock()
    trace = log.trace("completion", "a", clock=clock)
    trace.admitted()
    clock.now += 4.0
    record = trace.finish(200, "ok", usage=(3, 20))
    assert record is not None and record.ttft_s is None
    assert (record.prompt_tokens, record.completion_tokens, record.tokens_per_s) == (3, 20, 5.0)


def test_refused_and_abandoned_requests_are_recorded_with_their_status() -> None:
    log = RequestLog(GatewayMetrics())
    clock = Clock()
    unknown = log.trace("chat", "nope", clock=clock).failed(
        UnknownModelError("model 'nope' is not served here")
    )
    assert unknown is not None
    assert (unknown.status, unknown.outcome, unknown.model) == (404, "model_not_found", "nope")
    assert unknown.reason == "model 'nope' is not served here"
    assert unknown.queue_wait_s is None  # it never queued
    full = log.trace("chat", "a", clock=clock).failed(QueueFullError("the queue is full"))
    assert full is not None and (full.status, full.outcome) == (429, "queue_full")
    trace = log.trace("chat", "a", clock=clock)
    clock.now += 3.0
    left = trace.failed(asyncio.CancelledError())
    assert left is not None and (left.status, left.outcome) == (499, "client_disconnected")
    assert left.queue_wait_s == 3.0  # it waited in the queue until it left
    broken = log.trace("chat", "a", clock=clock).failed(ValueError("bug"))
    assert broken is not None and (broken.status, broken.reason) == (500, "ValueError: bug")
    assert [r.status for r in log.ring] == [404, 429, 499, 500]


def test_the_recent_tokens_per_second_of_each_model() -> None:
    log = RequestLog()
    clock = Clock()
    for model, tokens, seconds in (("a", 10, 1.0), ("a", 30, 1.0), ("b", 8, 4.0)):
        trace = log.trace("chat", model, clock=clock)
        trace.admitted()
        clock.now += seconds
        trace.finish(200, "ok", usage=(1, tokens))
    log.trace("chat", "c", clock=clock).finish(404, "model_not_found")
    assert log.speeds() == {"a": 20.0, "b": 2.0}  # (10 + 30) tokens over 2 s
    assert log.speeds(window=1) == {"a": 30.0, "b": 2.0}


def test_a_client_can_name_itself_and_long_names_are_cut() -> None:
    assert Caller.of({"user-agent": "python-httpx/0.28"}, "127.0.0.1") == Caller(
        "127.0.0.1", "python-httpx/0.28"
    )
    assert Caller.of({}, None) == Caller(None, None)
    long = Caller.of({CALLER_HEADER: "x" * 5000}, None)
    assert long.name is not None and len(long.name) == 300


# -- GET /logs over a live gateway ---------------------------------------------------------


async def test_logs_returns_every_request_as_json_lines(tmp_path: Path, tag: str) -> None:
    config = write_config(tmp_path, [fake_model("a", tag, tokens=8)], 1000 * MB)
    async with live_gateway(config, tag) as live:
        http, url = live.http, live.url
        lease = await http.post(f"{url}/models/a/load", headers={CALLER_HEADER: "swarm/lead"})
        assert lease.status_code == 200
        assert (await live.chat("a")).status_code == 200
        streamed = await live.chat("a", stream=True, stream_options={"include_usage": True})
        assert streamed.status_code == 200
        assert (await live.chat("a", stream=True)).status_code == 200  # no usage: estimated
        assert (await live.chat("no-such-model")).status_code == 404
        reply = await http.get(f"{url}/logs", params={"follow": "0"})
        assert reply.status_code == 200
        assert reply.headers["content-type"].startswith(NDJSON)
        records = lines(reply.text)
        assert [(r["kind"], r["status"]) for r in records] == [
            ("load", 200),
            ("chat", 200),
            ("chat", 200),
            ("chat", 200),
            ("chat", 404),
        ]
        assert all(r.keys() == FIELDS for r in records)
        assert [r["seq"] for r in records] == [1, 2, 3, 4, 5]
        load, whole, usage, estimated, unknown = records
        assert load["model"] == "a" and load["caller"] == "swarm/lead"
        assert load["client"] == "127.0.0.1" and load["queue_wait_s"] is not None
        assert whole["caller"].startswith("python-httpx")
        assert (whole["prompt_tokens"], whole["completion_tokens"]) == (5, 8)
        assert whole["ttft_s"] is None and whole["tokens_per_s"] > 0
        assert usage["stream"] and usage["ttft_s"] is not None
        assert (usage["prompt_tokens"], usage["completion_tokens"]) == (5, 8)
        assert not usage["tokens_estimated"]
        assert estimated["tokens_estimated"] and estimated["completion_tokens"] == 5
        assert estimated["prompt_tokens"] is None  # "fake answer from a": 5 pieces
        assert unknown["model"] == "no-such-model"
        assert unknown["outcome"] == "model_not_found" and "not served" in unknown["reason"]
        # the token counters got the reported usage of the two answers that had one
        metrics = live.service.metrics
        assert metrics.tokens[("a", "prompt")] == 10
        assert metrics.tokens[("a", "completion")] == 16
        later = await http.get(f"{url}/logs", params={"follow": "0", "after": "3", "tail": "1"})
        assert [r["seq"] for r in lines(later.text)] == [5]
        for query in ({"follow": "maybe"}, {"after": "-1"}, {"tail": "x"}):
            bad = await http.get(f"{url}/logs", params=query)
            assert bad.status_code == 400, query
            assert bad.json()["error"]["type"] == "invalid_request_error"


async def test_a_client_that_closes_at_done_has_its_whole_answer(tmp_path: Path, tag: str) -> None:
    """The OpenAI SDK stops reading at ``[DONE]`` and closes; the upstream may not have ended
    yet (vLLM's connection outlives its last event). Seen against the real server: such a
    stream was recorded as 499, "the client left during the stream", its tokens uncounted."""
    config = write_config(tmp_path, [fake_model("a", tag, tokens=8)], 1000 * MB)
    async with live_gateway(config, tag) as live:
        http, url = live.http, live.url
        assert (await http.post(f"{url}/models/a/load")).status_code == 200
        info = await live.model_info("a")
        port = int(info["url"].rsplit(":", 1)[1].split("/")[0])
        script = [{"content": "x" * 16, "hold_after_done_s": 30}]
        async with httpx.AsyncClient(trust_env=False) as direct:
            await direct.post(f"http://127.0.0.1:{port}/_fake/script", json=script)
        body = {
            "model": "a",
            "messages": [{"role": "user", "content": "hi"}],
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        async with http.stream("POST", f"{url}/v1/chat/completions", json=body) as reply:
            async for line in reply.aiter_lines():
                if line == "data: [DONE]":
                    break  # and close, as the SDK does
        async with asyncio.timeout(10), http.stream("GET", f"{url}/logs?after=1") as follow:
            record = json.loads(await anext(follow.aiter_lines()))  # the chat, once it ended
        assert (record["status"], record["outcome"]) == (200, "ok"), record
        assert record["completion_tokens"] == 8 and not record["tokens_estimated"]
        assert live.service.metrics.requests[("a", "ok")] == 1


async def test_logs_follows_new_requests_as_they_end(tmp_path: Path, tag: str) -> None:
    config = write_config(tmp_path, [fake_model("a", tag)], 1000 * MB)
    async with live_gateway(config, tag) as live:
        assert (await live.chat("missing")).status_code == 404
        async with live.http.stream("GET", f"{live.url}/logs") as stream:
            assert stream.headers["content-type"].startswith(NDJSON)
            got = stream.aiter_lines()
            first = json.loads(await asyncio.wait_for(anext(got), 30))
            assert (first["seq"], first["status"]) == (1, 404)
            assert (await live.chat("a")).status_code == 200
            second = json.loads(await asyncio.wait_for(anext(got), 30))
            assert (second["seq"], second["status"], second["model"]) == (2, 200, "a")
        # a browser's EventSource gets server-sent events that name their seq
        headers = {"Accept": "text/event-stream", "Last-Event-ID": "1"}
        async with live.http.stream("GET", f"{live.url}/logs", headers=headers) as events:
            assert events.headers["content-type"].startswith("text/event-stream")
            got = events.aiter_lines()
            head = [await asyncio.wait_for(anext(got), 30) for _ in range(3)]
            assert head[:2] == ["id: 2", "event: request"]
            assert json.loads(head[2].removeprefix("data: "))["seq"] == 2


async def test_logs_needs_the_token_like_the_other_routes(tmp_path: Path, tag: str) -> None:
    config = with_token_file(write_config(tmp_path, [fake_model("a", tag)], 1000 * MB))
    async with live_gateway(config, tag) as live:
        url = f"{live.url}/logs?follow=0"
        refused = await live.http.get(url)
        assert refused.status_code == 401
        assert refused.json()["error"]["type"] == "authentication_error"
        bearer = {"Authorization": f"Bearer {TOKEN}"}
        assert (await live.http.get(url, headers=bearer)).status_code == 200


def test_a_record_is_one_line_of_json() -> None:
    record = RequestLog().trace("chat", "a\nb").finish(200, "ok")
    assert isinstance(record, RequestRecord)
    line = record.json_line()
    assert line.endswith("\n") and line.count("\n") == 1
    assert json.loads(line)["model"] == "a\nb"


async def test_the_follow_stream_sends_a_heartbeat_while_quiet(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("runtime.gateway.requestlog.HEARTBEAT_S", 0.01)
    log = RequestLog()
    follow = log.follow()
    assert await anext(follow) is None  # nothing yet: a heartbeat
    log.trace("chat", "a").finish(200, "ok")
    record = await anext(follow)
    assert record is not None and record.seq == 1
    await follow.aclose()
