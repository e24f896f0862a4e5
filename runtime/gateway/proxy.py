"""The streaming proxy: one admitted request's exchange with its model's server.

The request body goes upstream byte for byte (structured-output fields included); the answer
comes back as it arrives, streamed or whole. One pump task owns the upstream exchange (send,
read, close) and hands events to the handler through a queue, so the exchange can be cut from
outside without crossing task boundaries inside httpx: when the scheduler revokes the
admission (a dead server, a drain that stopped making progress), the request stalls or its
hard cap passes, the pump is cancelled and the handler gets a terminal event carrying the
reason the client will see.

A request stalls when neither it nor its model made progress for the model's
``request_idle_s``: no byte of its own, no byte relayed for another request to the same model,
and no change in the server's work counters (:mod:`runtime.progress`; read only once the
request has been silent for half the limit). A request that streams, or waits while its model
prefills and decodes for others, is never cut.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass

import httpx

from runtime.gateway.errors import (
    DeadlineExceededError,
    GatewayError,
    ModelUnavailableError,
    UpstreamError,
)
from runtime.gateway.slot import Admission
from runtime.progress import ProgressClock, metrics_probe

POLL_S = 1.0
"""How often a silent exchange looks at its liveness."""

# Hop-by-hop and framing headers that must not be copied between connections.
_DROP_HEADERS = frozenset(
    {
        "connection",
        "keep-alive",
        "transfer-encoding",
        "content-length",
        "content-encoding",
        "host",
        "upgrade",
        "te",
        "trailer",
        "proxy-authorization",
        "proxy-connection",
        "accept-encoding",
    }
)


@dataclass(frozen=True)
class Head:
    """The upstream status line and headers."""

    status: int
    headers: dict[str, str]


@dataclass(frozen=True)
class End:
    """The exchange is over: cleanly (``error`` None) or with the error the client sees."""

    error: GatewayError | None = None
    upstream_failed: bool = False
    """True when the server could not be reached or broke the connection."""


Event = Head | bytes | End


def forward_headers(headers: Mapping[str, str], api_key: str | None) -> dict[str, str]:
    """The request headers to send upstream: end-to-end ones, with the backend's key.

    The client's own ``Authorization`` (the gateway's token, or anything else) never goes
    upstream: a backend gets its configured ``api_key`` or no credentials at all.
    """
    dropped = _DROP_HEADERS | {"authorization"}
    out = {k: v for k, v in headers.items() if k.lower() not in dropped}
    if api_key is not None:
        out["authorization"] = f"Bearer {api_key}"
    out["accept-encoding"] = "identity"
    return out


def response_headers(headers: httpx.Headers) -> dict[str, str]:
    """The upstream response headers to pass back to the client."""
    return {k: v for k, v in headers.items() if k.lower() not in _DROP_HEADERS}


class UpstreamExchange:
    """One request to a model's server, cancellable by revocation or by its deadline."""

    def __init__(
        self,
        client: httpx.AsyncClient,
        request: httpx.Request,
        admission: Admission,
        *,
        deadline: float | None,
        timeout_s: float | None,
    ) -> None:
        self.model = admission.slot.name
        self._slot = admission.slot
        self._client = client
        self._request = request
        self._deadline = deadline
        self._timeout_s = timeout_s
        self._clock = ProgressClock(clock=_now)
        self._events: asyncio.Queue[Event] = asyncio.Queue()
        self._task = asyncio.create_task(self._pump(), name=f"upstream-{admission.id}")
        self._watch = asyncio.create_task(self._watch_liveness(), name=f"live-{admission.id}")
        admission.on_revoke(self._revoke)

    async def _pump(self) -> None:
        try:
            async with asyncio.timeout_at(self._deadline):
                response = await self._client.send(self._request, stream=True)
                try:
                    self._progress()
                    self._events.put_nowait(
                        Head(response.status_code, response_headers(response.headers))
                    )
                    async for chunk in response.aiter_raw():
                        self._progress()
                        self._events.put_nowait(chunk)
                finally:
                    await response.aclose()
        except TimeoutError:
            message = f"the request to model {self.model} passed its deadline of "
            self._events.put_nowait(End(DeadlineExceededError(f"{message}{self._timeout_s:g} s")))
        except httpx.HTTPError as err:
            detail = f"{type(err).__name__}: {err}" if str(err) else type(err).__name__
            error = UpstreamError(f"the server of model {self.model} failed: {detail}")
            self._events.put_nowait(End(error, upstream_failed=True))
        except Exception as err:  # a bug must end the exchange, not hang the client
            self._events.put_nowait(End(UpstreamError(f"proxy failure: {err!r}")))
        else:
            self._events.put_nowait(End())
        finally:
            _cancel_once(self._watch)

    def _progress(self) -> None:
        self._clock.touch()
        self._slot.progress.touch()

    async def _watch_liveness(self) -> None:
        """Cut the exchange once it and its model made no progress for the idle limit."""
        idle_s = self._slot.request_idle_s
        probe = metrics_probe(self._client, _root(self._slot.backend.api_base))
        while not self._task.done():
            await asyncio.sleep(min(POLL_S, idle_s / 4))
            silent = min(self._clock.silent_for(), self._slot.progress.silent_for())
            if silent < idle_s / 2:
                continue
            if self._slot.progress.observe(await probe()):
                continue  # the server works (prefill, other streams): this one waits its turn
            silent = min(self._clock.silent_for(), self._slot.progress.silent_for())
            if silent >= idle_s and not self._task.done():
                self._stop_pump()
                self._events.put_nowait(
                    End(
                        DeadlineExceededError(
                            f"the request to model {self.model} made no progress for "
                            f"{silent:.0f} s, nor did its server (idle limit {idle_s:g} s)"
                        )
                    )
                )
                return

    def _stop_pump(self) -> None:
        _cancel_once(self._task)

    def _revoke(self, reason: str) -> None:
        self._stop_pump()
        _cancel_once(self._watch)
        self._events.put_nowait(End(ModelUnavailableError(reason)))

    async def next_event(self) -> Event:
        """The next event of the exchange (the last one is an :class:`End`)."""
        return await self._events.get()

    async def read_rest(self) -> tuple[bytes, End]:
        """Every remaining body chunk, and how the exchange ended."""
        parts: list[bytes] = []
        while True:
            event = await self.next_event()
            if isinstance(event, End):
                return b"".join(parts), event
            if isinstance(event, bytes):
                parts.append(event)

    async def chunks(self, end: list[End]) -> AsyncIterator[bytes]:
        """Body chunks as they arrive; appends the final :class:`End` to ``end``."""
        while True:
            event = await self.next_event()
            if isinstance(event, End):
                end.append(event)
                return
            if isinstance(event, bytes):
                yield event

    def cancel(self) -> None:
        """Stop the exchange without waiting for it."""
        self._stop_pump()
        _cancel_once(self._watch)

    async def aclose(self) -> None:
        """Stop the exchange (the client left, or it is over); safe to call twice."""
        _cancel_once(self._watch)
        if not self._task.done():
            self._stop_pump()
            await asyncio.wait({self._task})


def _cancel_once(task: asyncio.Task[None]) -> None:
    """Cancel ``task`` unless it is done or already cancelled.

    A second cancel of an httpx request that is unwinding from the first interrupts the
    cleanup that closes its connection, and the socket leaks: each request cut as stalled or
    revoked leaked one (issue 41, finding 2; the pump is cancelled by the cut and again by the
    handler's close, the liveness probe by the pump's end and again by the close).
    """
    if not task.done() and not task.cancelling():
        task.cancel()


def _now() -> float:
    """This module's clock (a test's virtual clock replaces the module's ``time``)."""
    return time.monotonic()


def _root(api_base: str) -> str:
    """A server's root URL from its OpenAI ``/v1`` base."""
    return api_base.rstrip("/").removesuffix("/v1")


_EVENT_END = re.compile(rb"\r?\n\r?\n")
_PROMPT = re.compile(rb'"prompt_tokens"\s*:\s*(\d+)')
_COMPLETION = re.compile(rb'"completion_tokens"\s*:\s*(\d+)')
# A key with a non-empty string value; inside a JSON string every quote is escaped, so an
# answer's text that spells the key never matches.
_CONTENT = re.compile(rb'"(?:content|text|reasoning_content|reasoning)"\s*:\s*"(?!")')
_MAX_EVENT_BYTES = 1 << 20
"""An event longer than this (no blank line yet) is not held: it is counted as it ends."""


class StreamTally:
    """The tokens of a relayed stream of server-sent events, read as its chunks pass.

    ``usage`` is the last event's ``usage`` (vLLM sends it, before ``[DONE]``, when the
    request asks ``stream_options.include_usage``); without it ``content_events`` (events
    carrying text: vLLM sends one per token, or a few) estimates the completion tokens.
    """

    def __init__(self) -> None:
        self.usage: tuple[int, int] | None = None
        self.content_events = 0
        self.done = False
        """Whether the stream's ``data: [DONE]`` passed: the client has the whole answer."""
        self._pending = b""

    def feed(self, chunk: bytes) -> None:
        """Read the events that ``chunk`` completes."""
        events = _EVENT_END.split(self._pending + chunk)
        self._pending = events.pop()
        for event in events:
            self._event(event)
        if len(self._pending) > _MAX_EVENT_BYTES:
            self._event(self._pending)
            self._pending = b""

    def close(self) -> None:
        """The stream ended: read its last event even without its blank line."""
        if self._pending.strip():
            self._event(self._pending)
        self._pending = b""

    def _event(self, event: bytes) -> None:
        if event.strip() == b"data: [DONE]":
            self.done = True
            return
        if b'"usage"' in event:
            prompt, completion = _PROMPT.findall(event), _COMPLETION.findall(event)
            if prompt and completion:
                self.usage = int(prompt[-1]), int(completion[-1])
        if _CONTENT.search(event):
            self.content_events += 1


def sse_error(error: GatewayError) -> bytes:
    """An error as a server-sent event, for a stream already under way."""
    return f"data: {json.dumps(error_body(error))}\n\n".encode()


def error_body(error: GatewayError) -> dict[str, object]:
    """The OpenAI-style error object for ``error``."""
    return {"error": {"message": str(error), "type": error.kind, "code": error.status}}
