"""The no-OOM promise under generated interleavings with faults: a hypothesis state machine.

**Level.** The machine drives the whole in-process :class:`GatewayService` (ledger, slots, the
swap scheduler with its own coordinator and watchdog tasks, residency, cost-aware eviction,
the grouped policy and the proxy) through :meth:`GatewayService.forward`, ``load`` and the
scheduler's ``unload``, exactly as the HTTP routes call them. Only the edges are fake
(``tests/unit/gateway/virtual_gateway.py``): fake servers on a fake device, NVML reading that
device, and an event loop on a virtual clock. Driving the core alone (``SwapScheduler``)
would skip the proxy, where a dead server is reported and a request released; driving real
processes would be slow and not deterministic. On the virtual clock a 30 s drain or a 5 s hung
start costs microseconds, so thousands of interleavings run in a couple of minutes and every
failure replays exactly.

**Rules** (each a hypothesis ``@rule``): a request arrives for any model with a random service
time and deadline; the next load of a model is scripted to succeed, fail, hang past its start
timeout or come back larger than declared, and takes a random time; the next sleep succeeds,
fails or keeps more device bytes than declared; the next wake fails; a server dies (while
serving, loading or asleep); NVML reads work, fail or lag (answer the previous figure); a
client disconnects (its request task is cancelled, as ``server.py`` does when the client
leaves); explicit ``load`` and ``unload`` calls arrive; time passes, in steps from a
microsecond to past the idle and sleep TTLs (so the TTLs fire). The gateway has no config
reload, so none is modelled.

**Invariants**, checked after every step (``@invariant``) and at the end:

- the ledger's device bytes (resident and sleeping remains) never exceed the budget, at any
  change (``ledger.violations``), nor its host bytes the host budget;
- the fake device never holds more than the budget (checked on every allocation), except for
  the part of a server's size above its declared footprint that NVML has not yet reported to
  the gateway (nothing can know it sooner); and, per model, what the ledger reserves is at
  least what its server really holds whenever NVML measured it truly; a stopped model holds
  nothing, in the ledger or on the device (no zombie memory);
- no model has two live servers, and no two starts run at once;
- every request ends exactly once, by its deadline (plus the few checks that a broken
  connection makes), with 200 or a clear error status (429, 503, 504); none is left admitted
  (``in_flight``) or queued once everything ended;
- a request to a ready model reaches its server at once, and no request reaches a server
  later than the starvation bound (``max_wait_s`` plus the swap cost per model ahead, see
  :func:`wait_bound`) after it arrived;
- the queue never holds more than ``max_queue`` requests (the rest get 429);
- no model stays ``starting`` or ``stopping`` longer than a start timeout plus a drain and a
  sleep; after the run, every server is stopped and the ledger is empty.

**Count.** Under the default profile (``tests/conftest.py``: derandomized, so the same cases
run on every machine) :func:`test_the_gateway_keeps_its_promises_under_generated_faults` asks
for :data:`INTERLEAVINGS` examples of up to 30 steps each, counts the examples and steps it
really ran, and requires at least 10,000 examples. An example is one interleaving from a
fresh gateway; a step is one more move in it, after which every invariant is checked.
Measured on 2 idle cores: 11,010 examples, 266,212 steps, 147 s (a gateway's TLS context is
built once a process: building it for every example took 13 ms of its 27, and 1,066 examples
took 29 s). ``--hypothesis-profile=soak`` runs 20,000 randomized examples of up to 50 steps
(it found the third bug below; the default run did not).

The shrunk counterexample of every failure found is kept below as a named regression test.
"""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass
from typing import Any, ClassVar

import hypothesis.strategies as st
from hypothesis import settings
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)
from starlette.responses import StreamingResponse

from runtime.gateway.errors import GatewayError
from runtime.gateway.ledger import LedgerSnapshot
from runtime.gateway.policies import ModelState
from tests.unit.gateway.virtual_gateway import (
    MB,
    FakeBackend,
    LoadOutcome,
    ModelSpec,
    NvmlMode,
    SleepOutcome,
    TrackedSlot,
    VirtualGateway,
    chat_body,
    virtual_gateway,
)

MODELS = ("a", "b", "c")
SPECS = [
    ModelSpec("a", 600 * MB),
    ModelSpec("b", 500 * MB, "sleep", 1, sleep_keeps=100 * MB),
    ModelSpec("c", 400 * MB, "sleep", 2, sleep_keeps=50 * MB),
]
START_TIMEOUT_S = 5.0
OK_STATUSES = frozenset({200, 429, 503, 504})
LOAD_DEADLINE_S = 60.0
"""The deadline of a ``load`` call (a model's ``request_timeout_s``)."""
REPORT_S = 0.6
"""How long a request may outlive its deadline: a broken connection checks the process ten
times, 50 ms apart (``swap._DEATH_CHECKS``), before it answers."""
_ids = itertools.count(1)


@dataclass
class Call:
    """One request (or load, or unload call) the machine made, and how it ended."""

    id: str
    kind: str
    model: str
    arrived: float
    deadline_s: float | None
    ready_at_arrival: bool
    task: asyncio.Task[int]
    ended: float | None = None
    status: int | None = None


def wait_bound(max_wait_s: float, drain_s: float, calls: int) -> float:
    """The longest a queued request may wait for its model, faults included.

    One swap costs at most a drain, a sleep or stop per victim, a failed wake and a start
    that hangs until its timeout; each of the other models may hold the device for
    ``max_wait_s`` and one swap; explicit load and unload calls each add one swap.
    """
    swap = drain_s + 3 * FakeBackend.SLEEP_S + FakeBackend.WAKE_S + START_TIMEOUT_S + 0.5
    return (len(MODELS) - 1) * (max_wait_s + swap) + swap + calls * swap


class GatewayMachine(RuleBasedStateMachine):
    """The in-process gateway, driven by generated requests, faults and the passing of time."""

    examples: ClassVar[int] = 0
    steps: ClassVar[int] = 0

    def __init__(self) -> None:
        super().__init__()
        self.gw: VirtualGateway | None = None
        self._context: Any = None
        self.calls: list[Call] = []
        self.snapshots: list[LedgerSnapshot] = []
        self.started = False
        GatewayMachine.examples += 1

    # -- set-up -------------------------------------------------------------------------

    @initialize(
        budget_mb=st.sampled_from([1000, 1100]),
        max_queue=st.sampled_from([8, 64, 3, 1]),
        max_wait_s=st.sampled_from([0.5, 2.0, 5.0]),
        drain_s=st.sampled_from([0.0, 0.5, 3.0]),
        idle_ttl_s=st.sampled_from([None, 4.0, 30.0]),
        sleep_ttl_s=st.sampled_from([None, 8.0]),
    )
    def start(
        self,
        budget_mb: int,
        max_queue: int,
        max_wait_s: float,
        drain_s: float,
        idle_ttl_s: float | None,
        sleep_ttl_s: float | None,
    ) -> None:
        self.max_queue, self.max_wait_s, self.drain_s = max_queue, max_wait_s, drain_s
        scheduling = {
            "max_queue": max_queue,
            "max_wait_s": max_wait_s,
            "drain_timeout_s": drain_s,
            "idle_ttl_s": idle_ttl_s,
            "sleep_ttl_s": sleep_ttl_s,
            "watch_interval_s": 1.0,
            "start_retry_s": 3.0,
            "linger_s": 0.5,
        }
        self._context = virtual_gateway(
            SPECS, budget_mb * MB, scheduling=scheduling, start_timeout_s=START_TIMEOUT_S
        )
        self.gw = self._context.__enter__()
        self.gw.service.ledger.observers.append(self.snapshots.append)
        self.gw.device.ledger = self.gw.service.ledger

    @property
    def g(self) -> VirtualGateway:
        assert self.gw is not None
        return self.gw

    # -- rules --------------------------------------------------------------------------

    @rule(
        model=st.sampled_from(MODELS),
        service_s=st.sampled_from([0.0, 0.05, 0.5, 2.0]),
        deadline_s=st.sampled_from([0.5, 3.0, 60.0]),
        stream=st.sampled_from(["no", "whole", "cut"]),
    )
    def request(self, model: str, service_s: float, deadline_s: float, stream: str) -> None:
        """A chat request arrives: answered whole, streamed, or streamed and left mid-way."""
        service = self.g.service
        call_id = f"r{next(_ids)}"
        body = chat_body(model, service_s=service_s, stream=stream != "no")

        async def call() -> int:
            service.slots[model].request_timeout_s = deadline_s
            try:
                reply = await service.forward(
                    model,
                    "/v1/chat/completions",
                    body,
                    {"x-test-id": call_id},
                    stream=stream != "no",
                )
            except GatewayError as err:
                return err.status
            if isinstance(reply, StreamingResponse):
                return await self._read_stream(reply, cut=stream == "cut")
            return reply.status_code

        self._track(call_id, "request", model, deadline_s, call())

    @rule(
        models=st.lists(st.sampled_from(MODELS), min_size=2, max_size=5),
        service_s=st.sampled_from([0.05, 1.0]),
    )
    def burst(self, models: list[str], service_s: float) -> None:
        """Several requests arrive at once (patient ones: a 60 s deadline)."""
        for model in models:
            self.request(model, service_s, 60.0, "no")

    @staticmethod
    async def _read_stream(reply: StreamingResponse, *, cut: bool) -> int:
        """Read a streamed answer as starlette sends it; ``cut``: the client leaves after
        the first chunk (starlette then stops iterating and runs the background task)."""
        async for _ in reply.body_iterator:
            if cut:
                break
        if reply.background is not None:
            await reply.background()
        return 499 if cut else reply.status_code

    @rule(model=st.sampled_from(MODELS))
    def load(self, model: str) -> None:
        """``POST /models/{model}/load``."""

        async def call() -> int:
            self.g.service.slots[model].request_timeout_s = LOAD_DEADLINE_S
            try:
                await self.g.service.load(model)
            except GatewayError as err:
                return err.status
            return 200

        self._track(f"l{next(_ids)}", "load", model, LOAD_DEADLINE_S, call())

    @rule(model=st.sampled_from(MODELS))
    def unload(self, model: str) -> None:
        """``POST /models/{model}/unload``."""

        async def call() -> int:
            try:
                await self.g.service.scheduler.unload(model)
            except GatewayError as err:
                return err.status
            return 200

        self._track(f"u{next(_ids)}", "unload", model, None, call())

    @rule(
        model=st.sampled_from(MODELS),
        outcome=st.sampled_from(["ok", "fail", "hang", "larger"]),
        seconds=st.sampled_from([0.1, 1.0, 4.0]),
    )
    def script_load(self, model: str, outcome: LoadOutcome, seconds: float) -> None:
        """The model's next load succeeds, fails, hangs or comes back larger."""
        self.g.backends[model].script.loads.append((outcome, seconds))

    @rule(model=st.sampled_from(["b", "c"]), outcome=st.sampled_from(["fail", "keeps_more"]))
    def script_sleep(self, model: str, outcome: SleepOutcome) -> None:
        """The model's next sleep fails, or keeps more device bytes than declared."""
        self.g.backends[model].script.sleeps.append(outcome)

    @rule(model=st.sampled_from(["b", "c"]))
    def script_wake_failure(self, model: str) -> None:
        """The model's next wake fails."""
        self.g.backends[model].script.wakes.append(False)

    @rule(model=st.sampled_from(MODELS))
    def kill(self, model: str) -> None:
        """The model's server dies (serving, loading or asleep)."""
        self.g.backends[model].kill()

    @rule(mode=st.sampled_from(["ok", "fail", "lag"]))
    def nvml(self, mode: NvmlMode) -> None:
        """NVML reads work, fail or lag from now on."""
        self.g.device.nvml = mode

    @precondition(lambda self: any(not c.task.done() for c in self.calls))
    @rule(pick=st.integers(0, 100))
    def disconnect(self, pick: int) -> None:
        """A client leaves: its request (or load or unload call) is cancelled."""
        pending = [c for c in self.calls if not c.task.done()]
        pending[pick % len(pending)].task.cancel()
        self.g.loop.settle()

    @rule(seconds=st.sampled_from([1e-6, 0.05, 0.3, 1.0, 3.0, 10.0]))
    def advance(self, seconds: float) -> None:
        """Time passes."""
        self.g.loop.advance(seconds)

    # -- helpers ------------------------------------------------------------------------

    def _track(
        self, call_id: str, kind: str, model: str, deadline_s: float | None, coro: Any
    ) -> None:
        slot = self.g.service.slots[model]
        ready = slot.state is ModelState.READY and self.g.backends[model].alive()
        task: asyncio.Task[int] = self.g.loop.create_task(coro)
        call = Call(call_id, kind, model, self.g.now, deadline_s, ready, task)
        task.add_done_callback(lambda t: self._ended(call, t))
        self.calls.append(call)
        self.g.loop.settle()

    def _ended(self, call: Call, task: asyncio.Task[int]) -> None:
        assert call.ended is None, f"{call.id} ended twice"
        call.ended = self.g.now
        call.status = 499 if task.cancelled() else task.result()

    # -- invariants ---------------------------------------------------------------------

    @invariant()
    def count_step(self) -> None:
        """Count the rules run (invariants also run once after :meth:`start`)."""
        if self.gw is not None and self.started:
            GatewayMachine.steps += 1
        self.started = self.gw is not None

    @invariant()
    def budget_holds(self) -> None:
        if self.gw is None:
            return
        ledger = self.g.service.ledger
        assert not ledger.violations, ledger.violations
        assert all(s.device_used <= s.device_budget for s in self.snapshots)
        assert all(s.host_used <= s.host_budget for s in self.snapshots)
        self.snapshots.clear()
        assert not self.g.device.ooms, self.g.device.ooms

    @invariant()
    def ledger_matches_the_device(self) -> None:
        if self.gw is None:
            return
        ledger, device = self.g.service.ledger, self.g.device
        for name, slot in self.g.service.slots.items():
            held = device.held_by(name)
            reserved = ledger.device.get(name, 0)
            assert len(device.live(name)) <= 1, f"{name} has two live servers"
            assert not self.g.backends[name].twice, self.g.backends[name].twice
            if slot.state is ModelState.STOPPED:
                assert reserved == 0 and ledger.host.get(name, 0) == 0, (name, ledger.device)
                assert held == 0, f"stopped model {name} still holds {held} bytes (zombie)"
            elif slot.state in (ModelState.READY, ModelState.SLEEPING) and (
                name not in device.unmeasured
            ):
                assert reserved >= held, (name, slot.state, reserved, held)
        assert device.most_starting <= 1, "two starts ran at once"
        starting = [s for s in self.g.service.slots.values() if s.state is ModelState.STARTING]
        assert len(starting) <= 1, "two models are starting at once"

    @invariant()
    def queue_is_bounded(self) -> None:
        if self.gw is not None:
            assert self.g.service.scheduler.queued_total() <= self.max_queue

    @invariant()
    def nothing_stuck(self) -> None:
        if self.gw is None:
            return
        now = self.g.now
        limit = START_TIMEOUT_S + self.drain_s + 2 * FakeBackend.SLEEP_S + 1.0
        for name, slot in self.g.service.slots.items():
            assert isinstance(slot, TrackedSlot)
            if slot.state in (ModelState.STARTING, ModelState.STOPPING):
                held = now - slot.state_since
                assert held <= limit, f"{name} stuck {slot.state} for {held:.2f} s"

    @invariant()
    def requests_end_in_time(self) -> None:
        if self.gw is None:
            return
        now = self.g.now
        explicit = sum(c.kind == "unload" for c in self.calls)
        bound = wait_bound(self.max_wait_s, self.drain_s, explicit)
        for call in self.calls:
            if call.status == 504 and call.deadline_s is not None:
                assert call.deadline_s <= bound, (
                    f"{call.id} to {call.model} starved: 504 after {call.deadline_s} s, "
                    f"more than the {bound:.1f} s any request may wait"
                )
            if call.deadline_s is not None:
                ends_by = call.arrived + call.deadline_s + REPORT_S
                assert (call.ended or now) <= ends_by + 1e-6, (
                    f"{call.id} to {call.model} outlived its deadline of {call.deadline_s} s"
                )
            if call.status is not None and call.kind == "request":
                assert call.status in OK_STATUSES | {499}, (call.id, call.status)

    @invariant()
    def waits_are_bounded(self) -> None:
        if self.gw is None:
            return
        by_id = {c.id: c for c in self.calls}
        explicit = sum(c.kind != "request" for c in self.calls)
        bound = wait_bound(self.max_wait_s, self.drain_s, explicit)
        for reached in self.g.upstream.reached:
            assert not reached.sleeping, f"{reached.request_id} reached a sleeping server"
            call = by_id[reached.request_id]
            wait = reached.at - call.arrived
            if call.ready_at_arrival:
                assert wait <= 1e-3, f"{call.id}: its model was ready, yet it waited {wait} s"
            assert wait <= bound, f"{call.id} waited {wait:.2f} s > {bound:.2f} s"

    # -- the end ------------------------------------------------------------------------

    def teardown(self) -> None:
        if self.gw is None:
            return
        try:
            self._check_the_end()
        finally:
            self._context.__exit__(None, None, None)
        assert self.g.device.used == 0, "servers still hold memory after the gateway closed"
        assert self.g.service.ledger.device_used == 0
        assert self.g.service.ledger.host_used == 0
        assert all(not b.alive() for b in self.g.backends.values())

    def _check_the_end(self) -> None:
        self.g.loop.advance(200.0)  # past every deadline, drain, TTL and start timeout
        ends = (self.budget_holds, self.ledger_matches_the_device, self.requests_end_in_time)
        for check in (*ends, self.waits_are_bounded):
            check()
        stuck = [c.id for c in self.calls if not c.task.done()]
        assert not stuck, f"calls never ended: {stuck}"
        for slot in self.g.service.slots.values():
            assert slot.in_flight == 0, f"{slot.name}: {slot.in_flight} admissions leaked"
            assert not slot.live_waiters(), f"{slot.name}: waiters left behind"
            assert slot.state not in (ModelState.STARTING, ModelState.STOPPING), slot.state


def run_machine(**overrides: Any) -> None:
    """Run :class:`GatewayMachine` under the current profile (with ``overrides``)."""
    run_state_machine_as_test(GatewayMachine, settings=settings(settings.default, **overrides))


INTERLEAVINGS = 10_000
"""Examples the default profile runs (the other hypothesis tests keep the profile's count)."""


def test_the_gateway_keeps_its_promises_under_generated_faults() -> None:
    GatewayMachine.examples = GatewayMachine.steps = 0
    default = settings.get_current_profile_name() == "edgeswarm"
    run_machine(**({"max_examples": INTERLEAVINGS} if default else {}))
    print(
        f"gateway state machine: {GatewayMachine.examples} examples, {GatewayMachine.steps} steps"
    )
    if default:
        assert GatewayMachine.examples >= INTERLEAVINGS, GatewayMachine.examples


# -- the shrunk counterexamples the machine found, kept as regression tests --------------

QUIET = {
    "budget_mb": 1000,
    "max_queue": 1,
    "max_wait_s": 0.5,
    "drain_s": 0.0,
    "idle_ttl_s": None,
    "sleep_ttl_s": None,
}


def replay(start: dict[str, Any], *steps: tuple[str, dict[str, Any]]) -> None:
    """Run ``steps`` on a fresh machine, checking every invariant after each, then the end."""
    state = GatewayMachine()
    state.start(**start)
    invariants = [
        state.budget_holds,
        state.ledger_matches_the_device,
        state.queue_is_bounded,
        state.nothing_stuck,
        state.requests_end_in_time,
        state.waits_are_bounded,
    ]
    try:
        for name, kwargs in steps:
            getattr(state, name)(**kwargs)
            for check in invariants:
                check()
    finally:
        state.teardown()


def test_a_cancelled_unload_does_not_leave_its_model_stopping() -> None:
    """An unload whose caller left half-way left the model ``stopping`` for good, holding
    its bytes and refusing every request (fixed: ``SwapScheduler.unload`` shields it)."""
    replay(
        QUIET,
        ("load", {"model": "a"}),
        ("advance", {"seconds": 1.0}),
        ("unload", {"model": "a"}),
        ("disconnect", {"pick": 0}),
        ("advance", {"seconds": 10.0}),
    )


def test_a_request_queued_during_an_unload_is_served() -> None:
    """A load (or request) arriving while its model was being unloaded queued, and nothing
    woke the coordinator when the unload ended: it waited for its whole deadline (fixed:
    the unload wakes the coordinator)."""
    replay(
        QUIET,
        ("load", {"model": "a"}),
        ("advance", {"seconds": 1.0}),
        ("unload", {"model": "a"}),
        ("load", {"model": "a"}),
        ("advance", {"seconds": 3.0}),
    )


def test_a_larger_load_does_not_break_the_budget_when_its_victim_sleeps() -> None:
    """a came back 900 MB instead of 600; making room, the gateway counted its sleep-mode
    victim b as freeing all 500 MB, but b kept 300 MB asleep, and a's measured size went
    into the ledger anyway: 1200 MB of 1100 (fixed: ``Residency._settle_footprint`` counts
    what victims keep and checks again after each round, stopping sleeping ones)."""
    replay(
        {**QUIET, "budget_mb": 1100, "max_queue": 8},
        ("script_sleep", {"model": "b", "outcome": "keeps_more"}),
        ("load", {"model": "b"}),
        ("script_load", {"model": "a", "outcome": "larger", "seconds": 0.1}),
        ("burst", {"models": ["a", "a"], "service_s": 0.05}),
        ("advance", {"seconds": 3.0}),
    )
