"""Liveness of a model server: whether it is doing work, read from its counters.

A call to a model is alive while its tokens arrive. Before its first token, or when a
server batches many streams on a busy machine, a call can wait a long time for good reasons:
it is queued behind other requests, its prompt is being prefilled, the model is being swapped
in. None of that is a hang, and a fixed deadline cannot tell them apart from one; a server's
work counters can. vLLM counts the prompt tokens it prefilled and the tokens it generated
(``vllm:prompt_tokens_total``, ``vllm:generation_tokens_total`` on ``GET /metrics``); their sum
only grows while the server works for someone. A call is dead when it got no token *and* its
server did no work for the idle limit: the server hangs, or it dropped the request.

Both sides use this: the agents' calls (:mod:`agents.stream`) and the gateway's proxy and
drain (:mod:`runtime.gateway.proxy`, :mod:`runtime.gateway.residency`).
"""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import httpx

_WORK = re.compile(r"^vllm:(?:prompt_tokens_total|generation_tokens_total)(?:\{[^}]*\})?\s+(\S+)$")

WorkProbe = Callable[[], Awaitable[float | None]]
"""Reads a model server's work done so far (tokens prefilled and generated, summed); None
when the server cannot say (no counters, no answer)."""


def work_done(metrics_text: str) -> float | None:
    """Tokens a vLLM server prefilled and generated, from its Prometheus text; None if absent."""
    total, seen = 0.0, False
    for line in metrics_text.splitlines():
        match = _WORK.match(line.strip())
        if match:
            seen = True
            try:
                total += float(match[1])
            except ValueError:
                continue
    return total if seen else None


def metrics_probe(client: httpx.AsyncClient, root_url: str, timeout_s: float = 5.0) -> WorkProbe:
    """A :data:`WorkProbe` reading ``<root_url>/metrics`` (a vLLM server, no ``/v1``)."""
    url = f"{root_url.rstrip('/')}/metrics"

    async def probe() -> float | None:
        try:
            reply = await client.get(url, timeout=timeout_s)
        except httpx.HTTPError:
            return None
        if reply.status_code != httpx.codes.OK:
            return None
        return work_done(reply.text)

    return probe


@dataclass
class ProgressClock:
    """When a call (or a model) last made progress: its own events, or its server's work.

    ``touch`` records an event of its own (a token, a byte); ``observe`` a reading of the
    server's work counter: a reading that differs from the last one is progress too. The
    first reading only sets the mark (nothing to compare it with).
    """

    last: float = -1.0
    """When it last progressed (-1: at its creation)."""
    work: float | None = None
    events: int = 0
    """Progress events so far (a counter others can poll, as a server's work counter)."""
    clock: Callable[[], float] = field(default=time.monotonic, repr=False)
    """Where the time comes from (the gateway's tests run it on a virtual clock)."""

    def __post_init__(self) -> None:
        """A clock starts as progress: nothing is silent before it exists."""
        if self.last < 0:
            self.last = self.clock()

    def touch(self, now: float | None = None) -> None:
        """An event of the call's own: it is alive now."""
        self.last = self.clock() if now is None else now
        self.events += 1

    def observe(self, work: float | None, now: float | None = None) -> bool:
        """A reading of the server's work; True when it moved since the last reading."""
        if work is None:
            return False
        moved = self.work is not None and work != self.work
        self.work = work
        if moved:
            self.touch(now)
        return moved

    def silent_for(self, now: float | None = None) -> float:
        """Seconds since the last progress."""
        return (self.clock() if now is None else now) - self.last
