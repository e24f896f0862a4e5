"""The streaming proxy (:mod:`runtime.gateway.proxy`): one admitted request's exchange.

What goes upstream (the body as it came, end-to-end headers, the backend's key and never the
client's token), what comes back (the answer as it arrives, without hop-by-hop headers), and
how an exchange ends: cleanly, revoked by the scheduler with its reason, failed by its server,
past its deadline, or cut because neither it nor its server made progress for the idle limit
(a server whose work counters move keeps it alive). The server is an ``httpx.MockTransport``;
a stream's tokens are read by :class:`StreamTally` as its chunks pass.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable

import httpx
import pytest

from runtime.gateway.backends import Launch, ProcessBackend
from runtime.gateway.errors import (
    DeadlineExceededError,
    ModelUnavailableError,
    QueueFullError,
    UpstreamError,
)
from runtime.gateway.proxy import (
    End,
    Head,
    StreamTally,
    UpstreamExchange,
    error_body,
    forward_headers,
    response_headers,
    sse_error,
)
from runtime.gateway.slot import ModelSlot
from tests.support.gateway import TOKEN
from tests.unit.gateway.sse_events import DONE, piece, sse

Handler = Callable[[httpx.Request], Awaitable[httpx.Response]]


def test_the_client_token_never_goes_upstream() -> None:
    headers = {"Authorization": f"Bearer {TOKEN}", "X-Request-Id": "7", "Host": "gw"}
    local = forward_headers(headers, None)
    assert "authorization" not in {k.lower() for k in local} and local["X-Request-Id"] == "7"
    remote = forward_headers(headers, "remote-key")
    assert remote["authorization"] == "Bearer remote-key"
    assert TOKEN not in str(remote)


def test_a_long_event_is_not_held_whole() -> None:
    tally = StreamTally()
    tally.feed(b"data: " + b"x" * (2 << 20))  # no blank line: read as it grows past the cap
    tally.feed(piece("a") + DONE)
    tally.close()
    assert tally.content_events == 1 and tally.usage is None


def test_hop_by_hop_headers_are_not_passed_back() -> None:
    upstream = httpx.Headers(
        {
            "Content-Type": "text/event-stream",
            "Content-Length": "12",
            "Transfer-Encoding": "chunked",
            "Connection": "keep-alive",
            "X-Request-Id": "7",
        }
    )
    assert response_headers(upstream) == {"content-type": "text/event-stream", "x-request-id": "7"}
    sent = forward_headers({"Content-Type": "application/json", "Accept-Encoding": "br"}, None)
    assert sent == {"Content-Type": "application/json", "accept-encoding": "identity"}


def test_the_tally_takes_the_last_usage_even_split_across_chunks() -> None:
    usage = sse({"choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 12}})
    tally = StreamTally()
    for chunk in (piece("he"), piece("llo") + usage[:20], usage[20:], DONE):
        tally.feed(chunk)
    assert tally.usage == (7, 12) and tally.content_events == 2 and tally.done
    empty = sse({"choices": [{"delta": {"role": "assistant", "content": ""}}]})
    last = StreamTally()
    last.feed(empty + piece("x") + b"data: [DONE]")  # its blank line never came
    assert not last.done and last.content_events == 1  # an empty content is no token
    last.close()
    assert last.done


def test_an_error_is_an_openai_error_object_whole_or_as_an_event() -> None:
    error = QueueFullError("the queue is full")
    assert error_body(error) == {
        "error": {"message": "the queue is full", "type": "queue_full", "code": 429}
    }
    event = sse_error(error)
    assert event.startswith(b"data: ") and event.endswith(b"\n\n")
    assert json.loads(event[6:]) == error_body(error)


# -- an exchange with a model's server -----------------------------------------------------


def no_launch() -> Launch:
    raise AssertionError("the proxy never starts a server")


def model_slot(idle_s: float = 120.0) -> ModelSlot:
    backend = ProcessBackend("m", no_launch)
    backend.api_base = "http://server:8000/v1"
    return ModelSlot("m", backend, 600, 1.0, request_idle_s=idle_s)


async def exchange_with(
    handler: Handler,
    slot: ModelSlot,
    *,
    timeout_s: float | None = None,
    revoke: str | None = None,
) -> tuple[list[Head | bytes | End], list[httpx.Request]]:
    """Every event of one exchange with the server ``handler``, and the requests it got."""
    seen: list[httpx.Request] = []

    async def server(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return await handler(request)

    async with httpx.AsyncClient(transport=httpx.MockTransport(server)) as client:
        request = client.build_request(
            "POST", "http://server:8000/chat/completions", content=b'{"model": "m"}'
        )
        admission = slot.admit()
        loop = asyncio.get_running_loop()
        deadline = None if timeout_s is None else loop.time() + timeout_s
        exchange = UpstreamExchange(
            client, request, admission, deadline=deadline, timeout_s=timeout_s
        )
        if revoke is not None:
            await asyncio.sleep(0.05)  # the request is on its way
            slot.revoke_all(revoke)
        events: list[Head | bytes | End] = []
        try:
            while not events or not isinstance(events[-1], End):
                events.append(await exchange.next_event())
        finally:
            admission.release()
            await exchange.aclose()
    return events, seen


async def never_answers(request: httpx.Request) -> httpx.Response:
    if request.url.path == "/metrics":
        return httpx.Response(200, text="fake_server 1\n")  # no work counters
    await asyncio.Event().wait()
    raise AssertionError("unreachable")


async def test_an_answer_is_relayed_as_it_arrives() -> None:
    async def chunks() -> AsyncIterator[bytes]:
        yield piece("hel")
        yield piece("lo") + DONE

    async def answer(request: httpx.Request) -> httpx.Response:
        headers = {"content-type": "text/event-stream", "content-length": "999"}
        return httpx.Response(200, headers=headers, content=chunks())

    slot = model_slot()
    events, seen = await exchange_with(answer, slot)
    assert events == [
        Head(200, {"content-type": "text/event-stream"}),
        piece("hel"),
        piece("lo") + DONE,
        End(),
    ]
    assert seen[0].content == b'{"model": "m"}'
    assert slot.progress.events == 3  # each byte relayed is progress of its model


async def test_a_revoked_admission_ends_its_exchange_with_the_reason() -> None:
    reason = "model m was unloaded (make room for n) and this request did not finish"
    events, _ = await exchange_with(never_answers, model_slot(), revoke=reason)
    [end] = events
    assert isinstance(end, End) and isinstance(end.error, ModelUnavailableError)
    assert str(end.error) == reason and not end.upstream_failed


async def test_a_server_that_cannot_be_reached_is_an_upstream_failure() -> None:
    async def refused(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    events, _ = await exchange_with(refused, model_slot())
    [end] = events
    assert isinstance(end, End) and isinstance(end.error, UpstreamError)
    assert end.upstream_failed  # the scheduler then looks whether the server died
    assert str(end.error) == "the server of model m failed: ConnectError: connection refused"


async def test_a_request_past_its_hard_cap_ends_with_504() -> None:
    events, _ = await exchange_with(never_answers, model_slot(), timeout_s=0.1)
    [end] = events
    assert isinstance(end, End) and isinstance(end.error, DeadlineExceededError)
    assert str(end.error) == "the request to model m passed its deadline of 0.1 s"
    assert end.error.status == 504


async def test_a_request_whose_server_does_no_work_is_cut_at_the_idle_limit() -> None:
    events, seen = await exchange_with(never_answers, model_slot(idle_s=0.4))
    [end] = events
    assert isinstance(end, End) and isinstance(end.error, DeadlineExceededError)
    assert "made no progress for" in str(end.error) and "idle limit 0.4 s" in str(end.error)
    assert [r.url.path for r in seen][:2] == ["/chat/completions", "/metrics"]


@pytest.mark.parametrize("moving", [True, False])
async def test_a_server_that_works_for_others_keeps_a_silent_request_alive(moving: bool) -> None:
    """Queued behind other streams, a request sees no byte; its server's counters move."""
    probes = 0
    answered = asyncio.Event()

    async def busy(request: httpx.Request) -> httpx.Response:
        nonlocal probes
        if request.url.path == "/metrics":
            probes += 1
            if probes == 4:
                answered.set()
            work = probes if moving else 0
            return httpx.Response(200, text=f'vllm:generation_tokens_total{{m="m"}} {work}\n')
        await answered.wait()
        return httpx.Response(200, stream=httpx.ByteStream(b'{"choices": []}'))  # unread

    slot = model_slot(idle_s=1.0)
    slot.progress.observe(0.0)  # the counter's last reading: each probe compares with one
    events, _ = await exchange_with(busy, slot)
    end = events[-1]
    assert isinstance(end, End)
    if moving:
        assert end.error is None and isinstance(events[0], Head)
    else:  # the same reading each time: no work, cut before the fourth probe
        assert isinstance(end.error, DeadlineExceededError) and probes < 4
