"""Residency transitions (:mod:`runtime.gateway.residency`): start, stop, sleep, wake, drain.

The ledger stays conservative through every step: a model's bytes are reserved before its
server starts or wakes and released only after it stopped or slept, a step the budget cannot
hold is refused before the server is touched, and a failure frees what it should and no more.
Each server here is a :class:`ProcessBackend` that notes what the ledger held for it at every
call (on CPU, so the declared sizes count: nothing is measured); the state machine and the
live tests drive the same steps through the whole gateway.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

import httpx
import pytest

from runtime.gateway.backends import BackendError, Launch, ProcessBackend
from runtime.gateway.errors import ModelUnavailableError
from runtime.gateway.ledger import MemoryLedger
from runtime.gateway.metrics import GatewayMetrics
from runtime.gateway.policies import ModelState, Room
from runtime.gateway.residency import Residency
from runtime.gateway.slot import ModelSlot
from runtime.settings import Device

Call = tuple[str, int, int]
"""A call on a server: (what, device bytes the ledger held for it, host bytes)."""


def no_launch() -> Launch:
    raise AssertionError("the fake server starts itself")


class Server(ProcessBackend):
    """A server whose calls succeed or fail as told, noting the ledger at each."""

    def __init__(self, name: str, ledger: MemoryLedger, *, sleep_mode: bool) -> None:
        super().__init__(name, no_launch, sleep_mode=sleep_mode)
        self.ledger = ledger
        self.running = False
        self.fails: set[str] = set()
        """Calls that fail ("start", "sleep", "wake"); "hang": sleep never returns."""
        self.calls: list[Call] = []

    def _note(self, what: str) -> None:
        device, host = self.ledger.device.get(self.name, 0), self.ledger.host.get(self.name, 0)
        self.calls.append((what, device, host))
        if what in self.fails:
            raise BackendError(f"{self.name}: {what} failed")

    async def start(self) -> None:
        self._note("start")
        self.running = True

    async def stop(self) -> None:
        self.running = False
        self._note("stop")

    async def sleep(self, client: httpx.AsyncClient, level: int) -> None:
        self._note("sleep")
        if "hang" in self.fails:
            await asyncio.Event().wait()  # frozen: answers nothing

    async def wake(self, client: httpx.AsyncClient, level: int) -> None:
        self._note("wake")

    def alive(self) -> bool:
        return self.running

    async def healthy(self, client: httpx.AsyncClient, timeout_s: float = 5.0) -> bool:
        return self.running and "hang" not in self.fails


@dataclass
class Rig:
    """The residency over its slots, with what its callbacks were asked."""

    residency: Residency
    ledger: MemoryLedger
    metrics: GatewayMetrics
    slots: dict[str, ModelSlot]
    servers: dict[str, Server]
    ready: list[str]
    """The models ``on_ready`` was called for."""
    host_asked: list[tuple[str, int]]
    """What ``host_room`` was asked: (the model going to sleep, the host bytes it needs)."""


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient() as http:  # the fake servers never use it
        yield http


def rig(
    client: httpx.AsyncClient,
    *,
    sleepers: tuple[str, ...] = (),
    budget: int = 1000,
    host_budget: int = 1000,
    drain_timeout_s: float | None = None,
    hung_after_s: float | None = None,
    host_victims: Callable[[ModelSlot, int], tuple[str, ...] | None] = lambda s, n: None,
) -> Rig:
    """Models ``a`` and ``b`` of 600 bytes; those in ``sleepers`` sleep keeping 100 on the
    device and 300 in host RAM."""
    ledger = MemoryLedger(budget, host_budget)
    metrics = GatewayMetrics()
    servers, slots = {}, {}
    for name in ("a", "b"):
        sleeps = name in sleepers
        servers[name] = Server(name, ledger, sleep_mode=sleeps)
        slots[name] = ModelSlot(
            name,
            servers[name],
            600,
            1.0,
            swap="sleep" if sleeps else "stop",
            sleep_host_footprint=300,
            sleep_device_footprint=100,
        )
    ready: list[str] = []
    host_asked: list[tuple[str, int]] = []

    def host_room(slot: ModelSlot, need: int) -> tuple[str, ...] | None:
        host_asked.append((slot.name, need))
        return host_victims(slot, need)

    def room(slot: ModelSlot, size: int) -> Room | None:
        raise AssertionError("on CPU nothing is measured larger than declared")

    residency = Residency(
        slots,
        ledger,
        metrics,
        client,
        drain_timeout_s=drain_timeout_s,
        device=Device.CPU,
        on_ready=lambda slot: ready.append(slot.name),
        hung_after_s=hung_after_s,
        room=room,
        host_room=host_room,
    )
    return Rig(residency, ledger, metrics, slots, servers, ready, host_asked)


# -- start and stop --------------------------------------------------------------------------


async def test_a_start_reserves_the_footprint_before_the_server_starts(
    client: httpx.AsyncClient,
) -> None:
    gw = rig(client)
    a = gw.slots["a"]
    await gw.residency.bring_up(a)
    assert gw.servers["a"].calls == [("stop", 0, 0), ("start", 600, 0)]  # leftovers, then it
    assert a.state is ModelState.READY and a.loaded_at > 0 and a.failure is None
    assert gw.ledger.device == {"a": 600} and gw.ready == ["a"]
    assert gw.metrics.swaps[("a", "load")] == 1


async def test_a_start_the_budget_cannot_hold_is_refused_before_the_server_starts(
    client: httpx.AsyncClient,
) -> None:
    gw = rig(client)
    gw.ledger.reserve("b", 600)  # b holds its bytes: a's do not fit beside them
    with pytest.raises(ModelUnavailableError, match="model a cannot be loaded: a needs"):
        await gw.residency.bring_up(gw.slots["a"])
    assert "start" not in [what for what, _, _ in gw.servers["a"].calls]
    assert gw.ledger.device == {"b": 600} and gw.ready == []


async def test_a_start_that_fails_frees_its_bytes_and_fails_the_model(
    client: httpx.AsyncClient,
) -> None:
    gw = rig(client)
    gw.servers["a"].fails.add("start")
    a = gw.slots["a"]
    with pytest.raises(ModelUnavailableError, match="model a failed to start: a: start failed"):
        await gw.residency.bring_up(a)
    assert gw.servers["a"].calls[-1] == ("stop", 600, 0)  # its remains stopped, still counted
    assert a.state is ModelState.FAILED and a.failure == "a: start failed"
    assert a.start_failed_at is not None and gw.ledger.device == {}
    assert gw.metrics.swaps[("a", "load_failed")] == 1 and gw.ready == []


async def test_a_stop_releases_the_bytes_only_once_the_server_stopped(
    client: httpx.AsyncClient,
) -> None:
    gw = rig(client)
    a = gw.slots["a"]
    await gw.residency.bring_up(a)
    await gw.residency.stop(a, "test")
    assert gw.servers["a"].calls[-1] == ("stop", 600, 0)
    assert a.state is ModelState.STOPPED and gw.ledger.device == {}
    assert gw.metrics.swaps[("a", "stop")] == 1


async def test_a_failed_model_s_remains_are_reaped_before_the_next_start(
    client: httpx.AsyncClient,
) -> None:
    gw = rig(client, budget=1200)
    a, b = gw.slots["a"], gw.slots["b"]
    await gw.residency.bring_up(a)
    a.state, a.failure = ModelState.FAILED, "process exited"  # as the watchdog marks it
    assert gw.residency.failed_holding() == [a]
    await gw.residency.bring_up(b)
    assert gw.servers["a"].calls[-1] == ("stop", 600, 0)
    assert a.state is ModelState.FAILED and not gw.ledger.holds("a")  # failed, but freed
    assert gw.residency.failed_holding() == [] and b.state is ModelState.READY


# -- sleep and wake --------------------------------------------------------------------------


async def test_an_evicted_sleep_mode_model_sleeps_keeping_its_remains(
    client: httpx.AsyncClient,
) -> None:
    gw = rig(client, sleepers=("a",))
    a = gw.slots["a"]
    await gw.residency.bring_up(a)
    await gw.residency.evict([a], reason="make room for b")
    # host RAM reserved before the sleep, the device's bytes held through it
    assert gw.servers["a"].calls[-1] == ("sleep", 600, 300)
    assert a.state is ModelState.SLEEPING
    assert gw.ledger.device == {"a": 100} and gw.ledger.host == {"a": 300}
    assert a.sleep_device_held == a.sleep_device_measured == 100
    assert gw.metrics.swaps[("a", "sleep")] == 1 and gw.metrics.swaps[("a", "stop")] == 0


async def test_a_victim_stopped_rather_than_slept_or_whose_sleep_fails_is_stopped(
    client: httpx.AsyncClient,
) -> None:
    gw = rig(client, sleepers=("a", "b"))
    a, b = gw.slots["a"], gw.slots["b"]
    await gw.residency.bring_up(a)
    await gw.residency.evict([a], reason="its remains would leave too little", stop=True)
    assert [what for what, _, _ in gw.servers["a"].calls] == ["stop", "start", "stop"]
    gw.servers["b"].fails.add("sleep")
    await gw.residency.bring_up(b)
    await gw.residency.evict([b], reason="make room")
    assert gw.servers["b"].calls[-2:] == [("sleep", 600, 300), ("stop", 600, 0)]
    assert a.state is b.state is ModelState.STOPPED
    assert gw.ledger.device == {} and gw.ledger.host == {}


async def test_waking_grows_the_remains_to_the_footprint_before_the_server_wakes(
    client: httpx.AsyncClient,
) -> None:
    gw = rig(client, sleepers=("a",))
    a = gw.slots["a"]
    await gw.residency.bring_up(a)
    await gw.residency.evict([a], reason="make room")
    await gw.residency.bring_up(a)
    assert gw.servers["a"].calls[-1] == ("wake", 600, 300)  # no fresh start
    assert a.state is ModelState.READY and a.sleep_device_held == 0
    assert gw.ledger.device == {"a": 600} and gw.ledger.host == {}
    assert gw.metrics.swaps[("a", "wake")] == 1 and gw.metrics.swaps[("a", "load")] == 1


async def test_a_failed_wake_keeps_the_remains_counted_until_its_server_stopped(
    client: httpx.AsyncClient,
) -> None:
    gw = rig(client, sleepers=("a",))
    a = gw.slots["a"]
    await gw.residency.bring_up(a)
    await gw.residency.evict([a], reason="make room")
    gw.servers["a"].fails.add("wake")
    await gw.residency.bring_up(a)  # a fresh server instead
    assert gw.servers["a"].calls[-3:] == [("wake", 600, 300), ("stop", 600, 300), ("start", 600, 0)]
    assert a.state is ModelState.READY and gw.ledger.device == {"a": 600}
    assert gw.ledger.host == {}


@pytest.mark.parametrize("victims", [("a",), None])
async def test_sleeping_stops_the_sleepers_the_policy_picks_for_host_ram(
    client: httpx.AsyncClient, victims: tuple[str, ...] | None
) -> None:
    """b's sleep needs 300 host bytes beside a's 300 of 400: the policy picks which sleeping
    model stops (here a), or none (then b stops instead of sleeping)."""
    gw = rig(
        client,
        sleepers=("a", "b"),
        budget=1200,
        host_budget=400,
        host_victims=lambda slot, need: victims,
    )
    a, b = gw.slots["a"], gw.slots["b"]
    await gw.residency.bring_up(a)
    await gw.residency.evict([a], reason="make room")
    await gw.residency.bring_up(b)
    await gw.residency.evict([b], reason="make room")
    assert gw.host_asked == [("b", 300)]  # a's sleep fit: nobody was asked then
    if victims:
        assert (a.state, b.state) == (ModelState.STOPPED, ModelState.SLEEPING)
        assert gw.ledger.host == {"b": 300} and gw.ledger.device == {"b": 100}
    else:
        assert (a.state, b.state) == (ModelState.SLEEPING, ModelState.STOPPED)
        assert gw.ledger.host == {"a": 300} and gw.ledger.device == {"a": 100}


async def test_a_sleep_call_on_a_server_that_answers_nothing_is_given_up(
    client: httpx.AsyncClient,
) -> None:
    """A frozen server answers neither the sleep nor its health checks: after
    ``hung_after_s`` the call is given up and the server, known hung, stopped at once."""
    gw = rig(client, sleepers=("a",), hung_after_s=0.2)
    a = gw.slots["a"]
    await gw.residency.bring_up(a)
    gw.servers["a"].fails.add("hang")
    async with asyncio.timeout(60):  # not the 120 s of a sleep call's client
        await gw.residency.evict([a], reason="make room")
    assert gw.servers["a"].hung
    assert gw.servers["a"].calls[-1] == ("stop", 600, 0) and a.state is ModelState.STOPPED
    assert gw.ledger.device == {} and gw.ledger.host == {}


# -- drain -----------------------------------------------------------------------------------


async def test_a_drain_waits_for_requests_that_finish(client: httpx.AsyncClient) -> None:
    gw = rig(client, drain_timeout_s=30.0)
    a = gw.slots["a"]
    await gw.residency.bring_up(a)
    request = a.admit()
    asyncio.get_running_loop().call_later(0.05, request.release)
    await gw.residency.drain(a, "make room for b")
    assert request.revoked is None and a.in_flight == 0
    assert gw.metrics.drain_cuts["a"] == 0


async def test_a_drain_cuts_what_is_left_at_its_cap(client: httpx.AsyncClient) -> None:
    gw = rig(client, drain_timeout_s=0.05)
    a = gw.slots["a"]
    await gw.residency.bring_up(a)
    request = a.admit()
    await gw.residency.drain(a, "make room for b")
    assert request.revoked == (
        "model a was unloaded (make room for b) and this request did not finish within the "
        "drain timeout of 0.05 s"
    )
    assert a.in_flight == 0 and gw.metrics.drain_cuts["a"] == 1
