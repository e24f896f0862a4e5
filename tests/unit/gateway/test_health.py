"""When a model's server last answered ``/health`` (:mod:`runtime.gateway.health`).

:class:`HealthWatch` probes one server in the background, one probe at a time, each waiting at
most half the limit (5 s at most); an answer counts from when its probe was sent. The server
is a :class:`ProcessBackend` whose health check the test answers, and the module's clock is
moved by hand.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from types import SimpleNamespace

import httpx
import pytest

from runtime.gateway import health as health_module
from runtime.gateway.backends import Launch, ProcessBackend
from runtime.gateway.health import HealthWatch


class Clock:
    """``time`` for the health module: ``monotonic`` is what the test says."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


class Server(ProcessBackend):
    """A backend whose health checks answer ``answers``, once ``reply`` is set."""

    def __init__(self, clock: Clock, *, answers: bool = True, raises: bool = False) -> None:
        super().__init__("m", self._no_launch)
        self.clock = clock
        self.answers = answers
        self.raises = raises
        self.reply = asyncio.Event()
        self.reply.set()
        self.probes: list[tuple[float, float]] = []
        """(sent at, its timeout) of each probe."""
        self.late_by = 0.0
        """Seconds the clock moves while a probe waits for its answer."""

    @staticmethod
    def _no_launch() -> Launch:
        raise AssertionError("the watch never starts a server")

    async def healthy(self, client: httpx.AsyncClient, timeout_s: float = 5.0) -> bool:
        self.probes.append((self.clock.now, timeout_s))
        await self.reply.wait()
        self.clock.now += self.late_by
        if self.raises:
            raise RuntimeError("the client closed under it")
        return self.answers


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(health_module, "time", SimpleNamespace(monotonic=clock.monotonic))
    return clock


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient() as http:  # never used: the test server answers itself
        yield http


async def probe(watch: HealthWatch) -> None:
    """Send a probe and wait until it has ended."""
    watch.poke()
    assert watch._probe is not None
    await watch._probe


async def test_an_answered_probe_ends_the_silence(clock: Clock, client: httpx.AsyncClient) -> None:
    watch = HealthWatch(Server(clock), client, limit_s=10.0)
    assert watch.silent_for() == 0.0 and not watch.silent()  # a watch begins as an answer
    clock.now += 10.0
    assert watch.silent_for() == 10.0 and watch.silent()
    await probe(watch)
    assert watch.silent_for() == 0.0 and not watch.silent()


@pytest.mark.parametrize("raises", [False, True])
async def test_a_probe_without_an_answer_leaves_the_silence(
    clock: Clock, client: httpx.AsyncClient, raises: bool
) -> None:
    watch = HealthWatch(Server(clock, answers=False, raises=raises), client, limit_s=0.02)
    clock.now += 5.0
    await probe(watch)  # it waits a moment after a failed probe (a refused one is quick)
    assert watch.silent_for() == 5.0 and watch.silent()


async def test_a_late_answer_counts_from_when_its_probe_was_sent(
    clock: Clock, client: httpx.AsyncClient
) -> None:
    server = Server(clock)
    server.late_by = 8.0
    watch = HealthWatch(server, client, limit_s=10.0)
    clock.now += 4.0
    await probe(watch)  # sent at +4, answered at +12
    assert watch.silent_for() == 8.0


async def test_each_probe_waits_half_the_limit_at_most_5_s(
    clock: Clock, client: httpx.AsyncClient
) -> None:
    server = Server(clock)
    await probe(HealthWatch(server, client, limit_s=4.0))
    await probe(HealthWatch(server, client, limit_s=60.0))
    assert [timeout for _, timeout in server.probes] == [2.0, 5.0]


async def test_one_probe_at_a_time_and_a_cancelled_one_ends(
    clock: Clock, client: httpx.AsyncClient
) -> None:
    server = Server(clock)
    server.reply.clear()  # the server does not answer yet
    watch = HealthWatch(server, client, limit_s=10.0)
    watch.poke()
    await asyncio.sleep(0)
    watch.poke()  # one is on its way: no second one
    await asyncio.sleep(0)
    assert len(server.probes) == 1
    on_its_way = watch._probe
    await watch.close()
    assert on_its_way is not None and on_its_way.cancelled()
    clock.now += 20.0
    server.reply.set()
    await probe(watch)  # a new probe after the close: the watch still works
    assert len(server.probes) == 2 and watch.silent_for() == 0.0
