"""The streaming proxy: one admitted request's exchange with its model's server.

The request body goes upstream byte for byte (structured-output fields included); the answer
comes back as it arrives, streamed or whole. One pump task owns the upstream exchange (send,
read, close) and hands events to the handler through a queue, so the exchange can be cut from
outside without crossing task boundaries inside httpx: when the scheduler revokes the
admission (drain timeout, dead server) or the request's deadline passes, the pump is cancelled
and the handler gets a terminal event carrying the reason the client will see.
"""

from __future__ import annotations

import asyncio
import json
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
        deadline: float,
        timeout_s: float,
    ) -> None:
        self.model = admission.slot.name
        self._client = client
        self._request = request
        self._deadline = deadline
        self._timeout_s = timeout_s
        self._events: asyncio.Queue[Event] = asyncio.Queue()
        self._task = asyncio.create_task(self._pump(), name=f"upstream-{admission.id}")
        admission.on_revoke(self._revoke)

    async def _pump(self) -> None:
        try:
            async with asyncio.timeout_at(self._deadline):
                response = await self._client.send(self._request, stream=True)
                try:
                    self._events.put_nowait(
                        Head(response.status_code, response_headers(response.headers))
                    )
                    async for chunk in response.aiter_raw():
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

    def _revoke(self, reason: str) -> None:
        self._task.cancel()
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
        self._task.cancel()

    async def aclose(self) -> None:
        """Stop the exchange (the client left, or it is over); safe to call twice."""
        if not self._task.done():
            self._task.cancel()
            await asyncio.wait({self._task})


def sse_error(error: GatewayError) -> bytes:
    """An error as a server-sent event, for a stream already under way."""
    return f"data: {json.dumps(error_body(error))}\n\n".encode()


def error_body(error: GatewayError) -> dict[str, object]:
    """The OpenAI-style error object for ``error``."""
    return {"error": {"message": str(error), "type": error.kind, "code": error.status}}
