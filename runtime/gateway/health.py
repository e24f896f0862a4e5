"""When a model's server last answered ``/health``: one rule for the watchdog and swap calls.

Two places ask whether a server that is alive still answers: the scheduler's watchdog, which
fails a ready server that answers nothing and makes no progress for ``hung_after_s``
(:meth:`runtime.gateway.swap.SwapScheduler._check_hung`), and the residency, which runs each
sleep and wake call beside probes and gives it up when the server answers nothing for as
long (:meth:`runtime.gateway.residency.Residency._watched`). Both probe the same way, here:
one probe at a time, each waiting at most half the limit (5 s at most), a refused
connection retried after a pause, and an answer counted from when its probe was sent (a
late answer says the server was alive then, not now).
"""

from __future__ import annotations

import asyncio
import contextlib
import time

import httpx

from runtime.gateway.backends import ProcessBackend

__all__ = ["HealthWatch"]

PROBE_TIMEOUT_S = 5.0
"""The longest one probe waits for its answer (less when half the limit is less)."""
RETRY_PAUSE_S = 1.0
"""After a probe that failed: a refused connection fails at once, so the next one waits."""


class HealthWatch:
    """Probes one server's ``/health`` in the background; when it last answered."""

    def __init__(self, backend: ProcessBackend, client: httpx.AsyncClient, limit_s: float) -> None:
        self.backend = backend
        self.limit_s = limit_s
        self._client = client
        self._answered = time.monotonic()
        self._probe: asyncio.Task[None] | None = None

    def poke(self) -> None:
        """Send a probe unless one is on its way (never waits)."""
        if self._probe is None or self._probe.done():
            self._probe = asyncio.create_task(self._run(), name=f"health-{self.backend.name}")

    def silent_for(self) -> float:
        """Seconds since the last probe that was answered was sent (or since the watch began)."""
        return time.monotonic() - self._answered

    def silent(self) -> bool:
        """No answer for the whole limit."""
        return self.silent_for() >= self.limit_s

    def cancel(self) -> None:
        """Cancel a probe on its way (it ends at its next await)."""
        probe, self._probe = self._probe, None
        if probe is not None and not probe.done():
            probe.cancel()

    async def close(self) -> None:
        """Cancel a probe on its way and wait until it has ended."""
        probe = self._probe
        self.cancel()
        if probe is not None:
            with contextlib.suppress(BaseException):
                await probe

    async def _run(self) -> None:
        sent = time.monotonic()
        timeout_s = min(PROBE_TIMEOUT_S, self.limit_s / 2)
        try:
            answered = await self.backend.healthy(self._client, timeout_s)
        except Exception:  # a client closing under it (shutdown): no answer
            answered = False
        if answered:
            self._answered = max(self._answered, sent)
        else:
            await asyncio.sleep(min(RETRY_PAUSE_S, timeout_s))
