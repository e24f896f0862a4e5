"""What a client may cost the gateway: body size, time to send a request, open connections.

The config's ``http`` section (:class:`~runtime.gateway.config.HttpConfig`) sets them; the
standalone and the embedded gateway (the embedded one is ``python -m runtime.gateway.cli``
too) serve through :func:`runtime.gateway.server.serve_config`, so both keep the same ones.

- **Body size** (:class:`BodyLimit`, ASGI): a body over ``max_body`` gets 413 before the
  gateway reads it, from its ``Content-Length``; a chunked body is counted as it comes in and
  refused as soon as it passes the limit, so at most the limit is ever held. Every route,
  authenticated or not, ``/ui/login`` included.
- **Slow clients** (:class:`GuardedH11Protocol`, uvicorn's h11 protocol with timers; uvicorn
  has no read timeouts of its own): a connection must deliver a whole request head within
  ``header_timeout_s`` of opening (or of its next request's first byte), and a body within
  ``body_timeout_s`` of its head; else it is closed (408 when the client sent part of a
  request). A head is at most :data:`MAX_HEAD_BYTES` (h11 answers a larger one with 400).
- **Connections** (:class:`ConnectionGuard`): at most ``max_connections`` open, fewer when the
  process may not open enough files (:func:`connection_cap`). Past the cap a new connection
  closes the one that waited longest without a request in progress (a slow or silent client,
  an idle keep-alive), so ``GET /health`` keeps answering during a flood of slow
  connections; when every connection is busy with a request, the new one gets 503.
  :func:`raise_open_files_limit` raises the soft ``RLIMIT_NOFILE`` toward the hard limit at
  start (the gateway holds two descriptors per request in flight: the client's, the
  upstream one).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import resource
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import h11
import uvicorn
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

from runtime.gateway.config import HttpConfig, format_bytes
from runtime.gateway.errors import GatewayError
from runtime.logs import get_logger

_log = get_logger("gateway.limits")

Phase = Literal["head", "body", "busy", "idle"]
"""Where a connection is: waiting for a request head (or receiving one), receiving a body,
serving a request, or idle between requests (uvicorn's keep-alive timeout then applies)."""
Refused = Callable[[str], None]
"""Called with the reason whenever a request or a connection is refused (metrics)."""

OPEN_FILES_TARGET = 65536
"""The soft ``RLIMIT_NOFILE`` the gateway raises itself to (when the hard limit allows)."""
FILES_RESERVED = 128
"""Descriptors kept out of the connection cap: logs, pipes, locks, the listening socket."""
MIN_CONNECTIONS = 16
MAX_HEAD_BYTES = 32 * 2**10
"""The largest request head (request line and headers; a larger one gets 400): twice h11's
default, for browsers that send every cookie of ``localhost`` to the status page."""
WARN_EVERY_S = 60.0
"""Dropped connections are logged as a warning at most this often (with their counts)."""


class RequestTooLargeError(GatewayError):
    """The request body is larger than ``http.max_body`` (413)."""

    status = 413
    kind = "request_too_large"


@dataclass(frozen=True)
class HttpLimits:
    """The limits of :class:`~runtime.gateway.config.HttpConfig`, for the HTTP layer."""

    max_body: int = HttpConfig().max_body
    header_timeout_s: float = HttpConfig().header_timeout_s
    body_timeout_s: float = HttpConfig().body_timeout_s
    max_connections: int = HttpConfig().max_connections

    @classmethod
    def of(cls, config: HttpConfig) -> HttpLimits:
        """The limits a config sets."""
        return cls(
            config.max_body,
            config.header_timeout_s,
            config.body_timeout_s,
            config.max_connections,
        )


def _ignore(reason: str) -> None:
    del reason


# -- the body ---------------------------------------------------------------------------


class _BodyTooLarge(Exception):
    """The body being read passed the limit (raised into the app by ``receive``)."""


class BodyLimit:
    """ASGI middleware: a request body over ``max_bytes`` gets 413 and is not read further."""

    def __init__(self, app: ASGIApp, max_bytes: int, refused: Refused = _ignore) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.refused = refused

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse a declared size over the limit; count the body as the app reads it."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.max_bytes:
            await self._refuse(send, declared)
            return
        seen = 0
        started = False

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise _BodyTooLarge
            return message

        async def sending(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, sending)
        except _BodyTooLarge:
            if started:
                raise
            await self._refuse(send, None)
        except ClientDisconnect:
            pass  # the client left (or was cut off) while sending: nobody to answer

    async def _refuse(self, send: Send, declared: int | None) -> None:
        self.refused("body_too_large")
        size = "" if declared is None else f" ({format_bytes(declared)})"
        error = RequestTooLargeError(
            f"the request body{size} is larger than this gateway accepts "
            f"({format_bytes(self.max_bytes)}, http.max_body in its config)"
        )
        body = json.dumps(
            {"error": {"message": str(error), "type": error.kind, "code": error.status}}
        ).encode()
        # Connection: close, so that the rest of the body is never read.
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ]
        await send({"type": "http.response.start", "status": error.status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def _content_length(scope: Scope) -> int | None:
    for name, value in scope["headers"]:
        if name == b"content-length":
            with contextlib.suppress(ValueError):
                return int(value)
    return None


# -- connections ------------------------------------------------------------------------


def _raw_error(status: int, reason: str, kind: str, message: str, extra: bytes = b"") -> bytes:
    """A whole OpenAI-style error answer, written before any request could be read."""
    body = json.dumps({"error": {"message": message, "type": kind, "code": status}}).encode()
    return (
        b"HTTP/1.1 %d %s\r\ncontent-type: application/json\r\n%scontent-length: %d\r\n"
        b"connection: close\r\n\r\n%s" % (status, reason.encode(), extra, len(body), body)
    )


_TIMED_OUT = _raw_error(
    408,
    "Request Timeout",
    "request_timeout",
    "the request did not arrive in time (http.header_timeout_s, http.body_timeout_s)",
)
_BUSY = _raw_error(
    503,
    "Service Unavailable",
    "too_many_connections",
    "the gateway has too many connections, each with a request in progress; retry shortly",
    b"retry-after: 1\r\n",
)


class ConnectionGuard:
    """The limits every connection of one server shares, and its connection cap."""

    def __init__(self, limits: HttpLimits, cap: int, refused: Refused = _ignore) -> None:
        self.limits = limits
        self.cap = cap
        self.refused = refused
        self.dropped: Counter[str] = Counter()
        """Connections closed by the limits, by reason, since the last warning."""
        self._warned_at: float | None = None

    def note(self, reason: str, client: str | None) -> None:
        """Count a dropped connection; warn at most every :data:`WARN_EVERY_S` seconds.

        A flood of slow connections must not flood the log too.
        """
        self.refused(reason)
        self.dropped[reason] += 1
        _log.debug("connection_dropped", reason=reason, client=client)
        now = time.monotonic()
        if self._warned_at is None or now - self._warned_at >= WARN_EVERY_S:
            _log.warning(
                "connections_dropped",
                by_reason=dict(self.dropped),
                last_client=client,
                connection_cap=self.cap,
            )
            self.dropped.clear()
            self._warned_at = now

    def admit(self, new: GuardedH11Protocol, connections: set[Any]) -> None:
        """Keep the open connections within the cap once ``new`` opened.

        The connection that has waited longest without a request in progress goes; when
        every other connection serves a request (or receives one's body), ``new`` gets 503.
        """
        open_ = [
            c
            for c in connections
            if isinstance(c, GuardedH11Protocol) and not c.transport.is_closing()
        ]
        if len(open_) <= self.cap:
            return
        waiting = [c for c in open_ if c is not new and c.phase in ("head", "idle")]
        if waiting:
            min(waiting, key=lambda c: c.phase_since).drop("too_many_connections", b"")
        else:
            new.drop("too_many_connections", _BUSY)


class GuardedH11Protocol(H11Protocol):
    """Uvicorn's h11 protocol with deadlines and a cap on connections.

    Each request's head and body must arrive in time; the connections of one server stay
    within the cap of their :class:`ConnectionGuard` (from :class:`GatewayServerConfig`).
    """

    def __init__(
        self,
        config: uvicorn.Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        guard = getattr(config, "guard", None)
        self.guard = (
            guard
            if isinstance(guard, ConnectionGuard)
            else ConnectionGuard(HttpLimits(), HttpLimits().max_connections)
        )
        self.phase: Phase = "head"
        self.phase_since = self.loop.time()
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """A new connection: its first request head must come in time."""
        super().connection_made(transport)
        self._enter("head")
        self.guard.admit(self, self.connections)

    def data_received(self, data: bytes) -> None:
        """Parse as uvicorn does, then see where the request stands."""
        super().data_received(data)
        self._follow()

    def on_response_complete(self) -> None:
        """The answer went out: the next request (maybe already buffered) starts."""
        super().on_response_complete()
        self._follow()

    def connection_lost(self, exc: Exception | None) -> None:
        """The connection closed: no deadline any more."""
        self._cancel()
        super().connection_lost(exc)

    def drop(self, reason: str, answer: bytes) -> None:
        """Close this connection, writing ``answer`` first (if any); count ``reason``."""
        self._cancel()
        if self.transport.is_closing():
            return
        self.guard.note(reason, _client(self.client))
        if answer:
            self.transport.write(answer)
        self.transport.close()

    def _follow(self) -> None:
        """Move to the phase the parser is in (a new phase starts its own deadline)."""
        if self.transport.is_closing():
            self._cancel()
            return
        state = self.conn.their_state
        if state is h11.IDLE:
            started = self.phase == "head" or bool(self.conn.trailing_data[0])
            self._enter("head" if started else "idle")
        elif state is h11.SEND_BODY:
            self._enter("body")
        else:
            self._enter("busy")

    def _enter(self, phase: Phase) -> None:
        if phase == self.phase and (self._deadline is not None or phase in ("busy", "idle")):
            return
        self._cancel()
        self.phase = phase
        self.phase_since = self.loop.time()
        limits = self.guard.limits
        seconds = {"head": limits.header_timeout_s, "body": limits.body_timeout_s}.get(phase)
        if seconds is not None:
            self._deadline = self.loop.call_later(seconds, self._expired, phase)

    def _expired(self, phase: Phase) -> None:
        self._deadline = None
        if phase == "head":
            sent = bool(self.conn.trailing_data[0])  # silent from the start: no answer
        else:
            sent = self.cycle is not None and not self.cycle.response_started
        self.drop(f"{phase}_timeout", _TIMED_OUT if sent else b"")

    def _cancel(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None


def _client(address: tuple[str, int] | None) -> str | None:
    return f"{address[0]}:{address[1]}" if address else None


class GatewayServerConfig(uvicorn.Config):
    """uvicorn's config for the gateway: its h11 protocol with the limits' guard."""

    def __init__(self, app: ASGIApp, *, guard: ConnectionGuard, **kwargs: Any) -> None:
        # The accept loop takes up to `backlog` connections before any of them is seen by the
        # guard: no more than the cap, so a burst stays within the open-files limit.
        kwargs.setdefault("backlog", min(2048, guard.cap))
        kwargs.setdefault("h11_max_incomplete_event_size", MAX_HEAD_BYTES)
        super().__init__(app, http=GuardedH11Protocol, ws="none", **kwargs)
        self.guard = guard


# -- file descriptors -------------------------------------------------------------------


def open_files_limit() -> int:
    """The process's soft ``RLIMIT_NOFILE``."""
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def raise_open_files_limit(target: int = OPEN_FILES_TARGET) -> int:
    """Raise the soft ``RLIMIT_NOFILE`` toward ``target``; the soft limit now.

    Never above the hard limit, and never down. The servers the gateway starts inherit it.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = target if hard == resource.RLIM_INFINITY else min(target, hard)
    if soft == resource.RLIM_INFINITY or wanted <= soft:
        return soft
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    except (ValueError, OSError) as err:
        _log.warning("open_files_limit_kept", soft=soft, hard=hard, error=str(err))
        return soft
    _log.info("open_files_limit_raised", before=soft, now=wanted, hard=hard)
    return wanted


def connection_cap(max_connections: int, files: int) -> int:
    """``max_connections``, lowered to what ``files`` descriptors allow.

    Each connection may need a second descriptor upstream, and :data:`FILES_RESERVED` go to
    everything else; never under :data:`MIN_CONNECTIONS`.
    """
    if files == resource.RLIM_INFINITY:
        return max_connections
    room = max(MIN_CONNECTIONS, (files - FILES_RESERVED) // 2)
    if room < max_connections:
        _log.warning(
            "connections_capped_by_open_files",
            max_connections=max_connections,
            cap=room,
            open_files_limit=files,
        )
    return min(max_connections, room)
