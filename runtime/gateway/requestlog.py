"""Per-request records: what each request did, logged and kept in a bounded ring.

Every request the gateway answers leaves one :class:`RequestRecord`: chat and text
completions, ``POST /models/{name}/load`` calls (kind ``load``: a swarm leases its model
there first, so that is where its swap wait shows), and the requests it refuses (a model it
does not serve, 404; a full queue, 429; a client that left, 499). A record goes to the
structured log as one ``request`` event and into the ring of :class:`RequestLog` (the last
:data:`RING_SIZE`; older ones are dropped, never kept forever), which ``GET /logs`` serves
(:meth:`RequestLog.endpoint`) and the status page tails.

A :class:`RequestTrace` follows one request from its arrival: it is admitted (the queue
wait ends), streams (its first chunk: the time to first token; its server-sent events: the
tokens) and ends once, with the status and outcome the client saw. Times come from the clock
it is given (the service's, which a test may make virtual).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
import uuid
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from runtime.gateway.errors import BadRequestError, GatewayError
from runtime.gateway.metrics import GatewayMetrics
from runtime.gateway.proxy import StreamTally, error_body
from runtime.logs import get_logger

_log = get_logger("gateway.requests")

RING_SIZE = 1000
"""Records the ring keeps (about 0.5 KB each): the newest, older ones dropped."""
HEARTBEAT_S = 15.0
"""A followed SSE stream sends a comment this often while no request ends (keeps proxies open)."""
CALLER_HEADER = "x-edgeswarm-caller"
"""A header naming the caller (a run, a node); else the record names the ``User-Agent``."""
NDJSON = "application/x-ndjson"
SPEED_WINDOW = 10
"""A model's recent tokens/s is over its last this many answers that counted tokens."""
_MAX_TEXT = 300
"""Characters kept of a reason, a caller or a model name (a client may send anything)."""
_GAVE_UP = frozenset({499, 503, 504})
"""Statuses of a request never admitted that waited in the queue until then: the client
left, its model failed to start, its deadline passed (a 404 or a 429 never waited)."""


@dataclass(frozen=True)
class Caller:
    """Who sent a request: the client's address, and what it calls itself."""

    client: str | None = None
    """The client's address (host, without the port)."""
    name: str | None = None
    """The ``X-Edgeswarm-Caller`` header when sent, else the ``User-Agent``."""

    @classmethod
    def of(cls, headers: Mapping[str, str], client: str | None) -> Caller:
        """The caller of a request with these ``headers`` from ``client``."""
        name = headers.get(CALLER_HEADER) or headers.get("user-agent")
        return cls(client, _cut(name) if name else None)


@dataclass(frozen=True)
class RequestRecord:
    """One finished request, as ``GET /logs`` and the ``request`` log event show it."""

    seq: int
    """Its place in this gateway's log (1, 2, ...): ``GET /logs?after=N`` returns later ones."""
    id: str
    """A unique id (hex), also in the log event."""
    at: float
    """When it arrived (epoch seconds)."""
    kind: str
    """``chat``, ``completion`` or ``load`` (``POST /models/{name}/load``)."""
    model: str | None
    caller: str | None
    client: str | None
    stream: bool
    status: int
    """The HTTP status it got (499: the client left; a stream cut mid-way: its error's)."""
    outcome: str
    """``ok``, or why not: ``model_not_found``, ``queue_full``, ``deadline_exceeded``..."""
    reason: str | None
    """The error's message (None when it succeeded)."""
    duration_s: float
    """From its arrival to its end."""
    queue_wait_s: float | None
    """From its arrival to its admission (None: never admitted nor queued, e.g. a 404)."""
    swap_wait_s: float | None
    """The part of the queue wait while the gateway loaded, woke, slept or stopped a model."""
    ttft_s: float | None
    """Time to first token: from its arrival to its first streamed chunk (streams only)."""
    prompt_tokens: int | None
    completion_tokens: int | None
    tokens_estimated: bool
    """True when the stream reported no usage: ``completion_tokens`` counts content events."""
    tokens_per_s: float | None
    """Completion tokens over the seconds since admission (the model's time on it)."""

    def as_dict(self) -> dict[str, Any]:
        """The record as JSON-ready fields."""
        return asdict(self)

    def json_line(self) -> str:
        """The record as one line of JSON."""
        return json.dumps(self.as_dict(), separators=(",", ":")) + "\n"


class RequestTrace:
    """One request from its arrival to its end; finished once (later ends are ignored)."""

    def __init__(
        self,
        log: RequestLog,
        kind: str,
        model: str | None,
        caller: Caller | None,
        *,
        stream: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._log = log
        self.kind = kind
        self.model = _cut(model) if model is not None else None
        self.caller = caller or Caller()
        self.stream = stream
        self._clock = clock
        self.at = time.time()
        self.started = clock()
        self.tally = StreamTally()
        self._admitted: float | None = None
        self._swap_wait_s: float | None = None
        self._first: float | None = None
        self.record: RequestRecord | None = None

    def elapsed(self) -> float:
        """Seconds since it arrived."""
        return self._clock() - self.started

    def admitted(self) -> None:
        """Its queue wait is over: it runs now (its swap wait is measured here)."""
        if self._admitted is None:
            self._admitted = self._clock()
            waited = self._admitted - self.started
            self._swap_wait_s = min(waited, self._log.swapping(self.at, self.at + waited))

    def chunk(self, data: bytes) -> None:
        """A streamed chunk was relayed (the first one is its first token)."""
        if self._first is None and data:
            self._first = self._clock()
        self.tally.feed(data)

    def finish(
        self,
        status: int,
        outcome: str,
        reason: str | None = None,
        usage: tuple[int, int] | None = None,
    ) -> RequestRecord | None:
        """End it with what the client got; its record (None if it had ended already).

        ``usage``: (prompt, completion) tokens of a whole answer; a stream's come from its
        own events, else are estimated from them.
        """
        if self.record is not None:
            return None
        end = self._clock()
        estimated = False
        if self.stream:
            self.tally.close()
            usage = self.tally.usage
            if usage is None and self.tally.content_events:
                estimated = True
        prompt, completion = usage if usage is not None else (None, None)
        if estimated:
            completion = self.tally.content_events
        queue_wait = None if self._admitted is None else self._admitted - self.started
        if queue_wait is None and status in _GAVE_UP:
            queue_wait = end - self.started  # it waited in the queue until it failed
            self._swap_wait_s = min(queue_wait, self._log.swapping(self.at, self.at + queue_wait))
        working = None if self._admitted is None else end - self._admitted
        speed = completion / working if completion and working and working > 0 else None
        self.record = self._log.add(
            kind=self.kind,
            id=uuid.uuid4().hex[:16],
            at=round(self.at, 3),
            model=self.model,
            caller=self.caller.name,
            client=self.caller.client,
            stream=self.stream,
            status=status,
            outcome=outcome,
            reason=_cut(reason) if reason else None,
            duration_s=_round(end - self.started),
            queue_wait_s=_round(queue_wait),
            swap_wait_s=_round(self._swap_wait_s),
            ttft_s=_round(None if self._first is None else self._first - self.started),
            prompt_tokens=prompt,
            completion_tokens=completion,
            tokens_estimated=estimated,
            tokens_per_s=None if speed is None else round(speed, 2),
        )
        return self.record

    def failed(self, error: BaseException) -> RequestRecord | None:
        """End it with an error: a gateway error's status, a client that left (499)."""
        if isinstance(error, GatewayError):
            return self.finish(error.status, error.kind, str(error))
        if isinstance(error, asyncio.CancelledError):
            return self.finish(499, "client_disconnected", "the client left before the end")
        return self.finish(500, "gateway_error", f"{type(error).__name__}: {error}")


class RequestLog:
    """The last :data:`RING_SIZE` records, their log events and their followers."""

    def __init__(self, metrics: GatewayMetrics | None = None, size: int = RING_SIZE) -> None:
        self.metrics = metrics
        self.ring: deque[RequestRecord] = deque(maxlen=size)
        self._seq = itertools.count(1)
        self._changed = asyncio.Event()

    def trace(
        self,
        kind: str,
        model: str | None,
        caller: Caller | None = None,
        *,
        stream: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> RequestTrace:
        """Start following a request that just arrived."""
        return RequestTrace(self, kind, model, caller, stream=stream, clock=clock)

    def add(self, **fields: Any) -> RequestRecord:
        """Record a finished request: into the ring, the log and the metrics.

        The one place a request's end is counted: ``requests_total`` and its duration for a
        chat or completion to a served model (not a lease's ``load`` call, nor a name no model
        has: a client's names would grow the series without bound), and the token counters
        from a reported usage (an estimate is not counted).
        """
        record = RequestRecord(seq=next(self._seq), **fields)
        self.ring.append(record)
        _log.info("request", **record.as_dict())
        metrics, model = self.metrics, record.model
        if metrics is not None and model and record.outcome != "model_not_found":
            if record.kind != "load":
                metrics.request(model, record.outcome, record.duration_s)
            if record.prompt_tokens is not None and not record.tokens_estimated:
                metrics.count_tokens(model, record.prompt_tokens, record.completion_tokens or 0)
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()
        return record

    def swapping(self, start: float, end: float) -> float:
        """Seconds between ``start`` and ``end`` (epoch) during which a swap step ran.

        Read at each request's admission: from the newest step back to the first that ended
        before ``start``, not the whole log.
        """
        if self.metrics is None or end <= start:
            return 0.0
        total = 0.0
        for began, done in reversed(self.metrics.swap_log):
            if done <= start:
                break  # steps are logged as they end: every earlier one ended before, too
            total += max(0.0, min(end, done) - max(start, began))
        return total

    def since(self, after: int = 0, tail: int | None = None) -> list[RequestRecord]:
        """Records later than ``seq`` ``after`` in the ring (the last ``tail`` of them)."""
        if not self.ring or self.ring[-1].seq <= after:
            return []
        newer = min(len(self.ring), self.ring[-1].seq - after)  # seqs are consecutive
        if tail is not None:
            newer = min(newer, tail)
        return list(itertools.islice(self.ring, len(self.ring) - newer, None))

    async def follow(
        self, after: int = 0, tail: int | None = None
    ) -> AsyncGenerator[RequestRecord | None, None]:
        """Records after ``after`` as they end, forever; None after each quiet heartbeat."""
        backlog = True
        while True:
            changed = self._changed
            records = self.since(after, tail if backlog else None)
            backlog = False
            for record in records:
                yield record
                after = record.seq
            if not records:
                try:
                    async with asyncio.timeout(HEARTBEAT_S):
                        await changed.wait()
                except TimeoutError:
                    yield None

    def speeds(self, window: int = SPEED_WINDOW) -> dict[str, float]:
        """Each model's recent tokens/s, over its last ``window`` answers that counted tokens.

        Their completion tokens together over their working seconds together.
        """
        tokens: dict[str, list[float]] = {}
        seconds: dict[str, list[float]] = {}
        for record in reversed(self.ring):
            if record.model is None or record.tokens_per_s is None or not record.completion_tokens:
                continue
            done = tokens.setdefault(record.model, [])
            if len(done) < window:
                done.append(record.completion_tokens)
                seconds.setdefault(record.model, []).append(
                    record.completion_tokens / record.tokens_per_s
                )
        return {
            model: round(sum(counts) / sum(seconds[model]), 2)
            for model, counts in tokens.items()
            if sum(seconds[model]) > 0
        }

    async def endpoint(self, request: Request) -> Response:
        """``GET /logs``: the records as JSON lines, then new ones as they end.

        The query: ``follow=0`` returns what the ring holds and ends (following is the
        default); ``after=N`` only records later than ``seq`` N; ``tail=N`` at most the last
        N of those. A client that asks for ``text/event-stream`` (a browser's
        ``EventSource``) gets server-sent events (``id`` the ``seq``, so a reconnection
        resumes after ``Last-Event-ID``) with a comment every :data:`HEARTBEAT_S`.
        """
        try:
            follow, after, tail = _query(request.query_params, request.headers)
        except BadRequestError as err:
            return JSONResponse(error_body(err), status_code=err.status)
        headers = {"Cache-Control": "no-store"}
        if not follow:
            lines = "".join(record.json_line() for record in self.since(after, tail))
            return Response(lines, media_type=NDJSON, headers=headers)
        sse = "text/event-stream" in request.headers.get("accept", "")
        headers["X-Accel-Buffering"] = "no"  # a reverse proxy must pass each line at once
        return StreamingResponse(
            _framed(self.follow(after, tail), sse),
            media_type="text/event-stream" if sse else NDJSON,
            headers=headers,
        )


async def _framed(records: AsyncIterator[RequestRecord | None], sse: bool) -> AsyncIterator[str]:
    """Followed records as JSON lines, or as server-sent events with heartbeats."""
    async for record in records:
        if record is None:
            if sse:
                yield ": keep-alive\n\n"
        elif sse:
            yield f"id: {record.seq}\nevent: request\ndata: {record.json_line()}\n"
        else:
            yield record.json_line()


def _query(params: Mapping[str, str], headers: Mapping[str, str]) -> tuple[bool, int, int | None]:
    """``GET /logs``'s ``follow``, ``after`` and ``tail``; BadRequestError when unreadable."""
    follow_text = params.get("follow", "1").lower()
    if follow_text not in ("1", "true", "yes", "0", "false", "no"):
        raise BadRequestError(f"follow={follow_text[:20]!r}: use follow=1 or follow=0")
    after = _count(params, "after", headers.get("last-event-id") or "0") or 0
    tail = _count(params, "tail", None)
    return follow_text in ("1", "true", "yes"), after, tail


def _count(params: Mapping[str, str], key: str, default: str | None) -> int | None:
    text = params.get(key, default)
    if text is None:
        return None
    if not text.isdigit() or len(text) > 18:
        raise BadRequestError(f"{key}={text[:20]!r}: use a whole number, e.g. {key}=10")
    return int(text)


def _cut(text: str) -> str:
    return text if len(text) <= _MAX_TEXT else text[: _MAX_TEXT - 1] + "…"


def _round(seconds: float | None) -> float | None:
    return None if seconds is None else round(max(0.0, seconds), 3)
