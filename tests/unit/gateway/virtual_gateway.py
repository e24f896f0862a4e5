"""The gateway in process, on a virtual clock, over fake backends on a fake device.

What is real: :class:`GatewayService` and everything it assembles (the ledger, the slots, the
swap scheduler with its coordinator and watchdog tasks, residency, eviction, the grouped
policy, the proxy and, through :func:`runtime.gateway.server.build_app`, the HTTP routes).
What is fake:

- **time**: :class:`VirtualLoop` is an asyncio event loop whose clock only moves when every
  task waits for a timer; it then jumps to the next timer. ``time.monotonic`` in the gateway
  modules reads the same clock. A 300 s deadline costs nothing, and a run is deterministic.
- **servers**: :class:`FakeBackend` is a :class:`ProcessBackend` (the scheduler's
  ``isinstance`` checks see a process backend) whose start, stop, sleep and wake take scripted
  virtual seconds and succeed, fail, hang past the start timeout or come back larger than
  declared. Its requests are answered by an ``httpx.MockTransport`` handler. A server can also
  be *frozen* (:meth:`FakeBackend.freeze`, what ``SIGSTOP`` does to a real one): it stays
  alive but answers nothing and does no work (requests, health checks, sleep and wake calls
  wait, up to their client's timeout), ignores ``SIGTERM`` (a stop sits out the TERM grace
  unless the backend is known hung: then it is killed at once) until it is thawed or dies.
- **the device**: :class:`FakeDevice` holds what the live fake servers really hold, and
  records every moment it holds more than the budget (an OOM).
- **NVML**: ``measure_footprint`` and ``device_mark`` read the fake device, or fail (None), or
  lag (give the figure of the previous measurement).

``asyncio.to_thread`` runs its function inline: the fakes never block, and a thread would
let real time into a virtual run.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import math
import selectors
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, NoReturn, TypeVar

import httpx
import structlog

from runtime.gateway import health as health_module
from runtime.gateway import proxy as proxy_module
from runtime.gateway import residency as residency_module
from runtime.gateway import service as service_module
from runtime.gateway import slot as slot_module
from runtime.gateway import swap as swap_module
from runtime.gateway.backends import BackendError, ProcessBackend
from runtime.gateway.budget import Budget, DeviceMark
from runtime.gateway.config import parse_config
from runtime.gateway.ledger import MemoryLedger
from runtime.gateway.policies import ModelState
from runtime.gateway.service import GatewayService, GatewaySetup
from runtime.gateway.slot import ModelSlot
from runtime.settings import Device

MB = 10**6
T = TypeVar("T")
TERM_GRACE_S = 10.0
"""How long a stop waits for a server to answer SIGTERM before KILL (a command model's
``stop_timeout_s``): a frozen server sits it out."""
CALL_TIMEOUT_S = 120.0
"""The client timeout of a sleep or wake call (``backends._SLEEP_CALL_TIMEOUT_S``)."""
LoadOutcome = Literal["ok", "fail", "hang", "larger"]
SleepOutcome = Literal["ok", "fail", "keeps_more"]
NvmlMode = Literal["ok", "fail", "lag"]


def _loop_time() -> float:
    """The running (virtual) loop's clock."""
    return asyncio.get_event_loop().time()


class DeadlockError(RuntimeError):
    """Every task waits for something no timer or callback will ever bring."""


class LivelockError(RuntimeError):
    """The loop ran this many rounds without its clock moving: some task spins."""


SPIN_LIMIT = 5_000
"""Loop rounds at one virtual instant before :class:`LivelockError` (a busy task)."""


class _VirtualSelector(selectors.SelectSelector):
    """Never blocks: when nothing is ready it moves the loop's clock to the next timer."""

    def __init__(self) -> None:
        super().__init__()
        self.now = 1000.0
        self.spins = 0

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        ready = super().select(0)
        if ready:
            return ready
        if timeout is None:
            raise DeadlockError("no timer is pending and nothing is ready: every task is stuck")
        # Every round moves the clock by at least one step of the float, as a real clock
        # moves while a round runs: a timer a hair ahead comes due instead of spinning.
        self.now = max(self.now + timeout, math.nextafter(self.now, math.inf))
        if timeout > 1e-9:
            self.spins = 0
        else:
            self.spins += 1
            if self.spins > SPIN_LIMIT:
                self.spins = 0
                raise LivelockError(f"{SPIN_LIMIT} loop rounds at one instant: a task spins")
        return []


class VirtualLoop(asyncio.SelectorEventLoop):
    """An event loop on a virtual clock (see the module docstring)."""

    def __init__(self) -> None:
        self._virtual = _VirtualSelector()
        super().__init__(self._virtual)

    def time(self) -> float:
        """Virtual seconds (from 1000 at the loop's start)."""
        return self._virtual.now

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` to its end (virtual time passes as it needs)."""
        return self.run_until_complete(coro)

    def advance(self, seconds: float) -> None:
        """Let ``seconds`` of virtual time pass, running everything due meanwhile."""
        self.run_until_complete(asyncio.sleep(seconds))

    def settle(self) -> None:
        """Run what is ready now (a microsecond of virtual time)."""
        self.advance(1e-6)

    def close(self) -> None:
        """Finalize async generators, then close."""
        if not self.is_closed():
            self.run_until_complete(self.shutdown_asyncgens())
        super().close()


class _Clock:
    """``time`` for the gateway modules: ``monotonic`` is the current virtual loop's clock."""

    def __init__(self, loop: VirtualLoop) -> None:
        self._loop = loop

    def monotonic(self) -> float:
        return self._loop.time()

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)


class TrackedSlot(ModelSlot):
    """A model slot that notes when its state last changed (``state_since``), and every
    change (``history``)."""

    state_since: float = 0.0

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "state" and value is not self.__dict__.get("state"):
            now = asyncio.get_event_loop().time()
            super().__setattr__("state_since", now)
            self.__dict__.setdefault("_history", []).append((now, value))
        super().__setattr__(name, value)

    @property
    def history(self) -> list[tuple[float, ModelState]]:
        """Every change of state since the slot was tracked: (when, the new state)."""
        return list(self.__dict__.get("_history", []))


@dataclass
class FakeServer:
    """One fake server process: what it holds on the device, and whether it lives."""

    pid: int
    model: str
    holds: int = 0
    alive: bool = True
    sleeping: bool = False
    declared: int = 0
    """What its config declares it holds awake (it may hold more: ``larger``)."""
    declared_asleep: int = 0
    """What its config declares it keeps asleep (it may keep more: ``keeps_more``)."""
    died: asyncio.Event = field(default_factory=asyncio.Event)
    died_at: float | None = None
    """When it died (killed, stopped, or given up while starting)."""
    frozen: bool = False
    """Stopped by a signal (``SIGSTOP``): alive, holding its memory, answering nothing."""
    running: asyncio.Event = field(default_factory=asyncio.Event)
    """Set while it can run: not frozen, or dead (a waiter on it then sees the death)."""
    frozen_spans: list[tuple[float, float]] = field(default_factory=list)
    """When it was frozen, (from, to); the current span is open (``frozen_at``)."""
    frozen_at: float | None = None

    def __post_init__(self) -> None:
        self.running.set()

    def freeze(self) -> bool:
        """``SIGSTOP``: True if it lived and ran."""
        if not self.alive or self.frozen:
            return False
        self.frozen, self.frozen_at = True, _loop_time()
        self.running.clear()
        return True

    def thaw(self) -> bool:
        """``SIGCONT``: True if it was frozen."""
        if not self.frozen:
            return False
        if self.frozen_at is not None:
            self.frozen_spans.append((self.frozen_at, _loop_time()))
        self.frozen, self.frozen_at = False, None
        self.running.set()
        return True

    def frozen_during(self, start: float, end: float) -> bool:
        """Whether it was frozen at some moment of ``[start, end]``."""
        if self.frozen_at is not None and self.frozen_at <= end:
            return True
        return any(a <= end and b >= start for a, b in self.frozen_spans)

    def die(self) -> None:
        """The process is gone (its memory with it)."""
        self.thaw()
        if self.alive:
            self.alive = False
            self.died_at = _loop_time()
        self.died.set()
        self.running.set()

    async def until_running(self, timeout_s: float | None) -> bool:
        """Wait (up to ``timeout_s``) until it runs again; whether it lives and runs."""
        deadline = None if timeout_s is None else _loop_time() + timeout_s
        while self.frozen and self.alive:  # thawed and frozen again meanwhile: wait on
            left = None if deadline is None else deadline - _loop_time()
            if left is not None and left <= 0:
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.running.wait(), timeout=left)
        return self.alive and not self.frozen


@dataclass
class FakeDevice:
    """The device's real memory: what the live fake servers hold, checked on every change."""

    budget: int
    servers: dict[int, FakeServer] = field(default_factory=dict)
    nvml: NvmlMode = "ok"
    ooms: list[str] = field(default_factory=list)
    last_seen: dict[int, int] = field(default_factory=dict)
    """The last figure NVML gave per pid (what a lagging read answers)."""
    unmeasured: set[str] = field(default_factory=set)
    """Models whose last load or sleep NVML could not measure truly (failed or lagged)."""
    starting: int = 0
    """Fake starts in progress (the device mutex allows one)."""
    most_starting: int = 0
    ledger: MemoryLedger | None = None
    """The gateway's ledger: a server above its declared size counts only once it is in it."""
    on_change: Callable[[], None] | None = None
    """Called after every change of what the servers hold (a test audits the ledger)."""

    @property
    def used(self) -> int:
        """Bytes the live servers hold now."""
        return sum(s.holds for s in self.servers.values() if s.alive)

    def held_by(self, model: str) -> int:
        """Bytes the live servers of ``model`` hold now."""
        return sum(s.holds for s in self.servers.values() if s.alive and s.model == model)

    def live(self, model: str) -> list[FakeServer]:
        """The live servers of ``model`` (never more than one)."""
        return [s for s in self.servers.values() if s.alive and s.model == model]

    def frozen(self) -> list[FakeServer]:
        """The live servers that are frozen."""
        return [s for s in self.servers.values() if s.alive and s.frozen]

    def set_holds(self, server: FakeServer, nbytes: int, why: str) -> None:
        """The server now holds ``nbytes``; an OOM is recorded past the budget.

        A server that holds more than it declared counts only its declared bytes here until
        the gateway measured it (nothing can know sooner); see :meth:`check`.
        """
        server.holds = nbytes
        self.check(why)

    def check(self, why: str) -> None:
        """Record an OOM if the live servers hold more than the budget.

        The part of a server's size above what its config declares (awake or asleep) and
        above what the ledger holds for it is left out: the gateway cannot know it until
        NVML measures it, and when NVML fails or lags the declared figure stands, by
        design. That a true measurement reaches the ledger is checked per model by the
        state machine (``ledger_matches_the_device``).
        """
        if self.on_change is not None:
            self.on_change()
        unknown = 0
        for server in self.servers.values():
            reserved = self.ledger.device.get(server.model, 0) if self.ledger else 0
            declared = server.declared_asleep if server.sleeping else server.declared
            if server.alive and server.holds > max(declared, reserved):
                unknown += server.holds - max(declared, reserved)
        if self.used - unknown > self.budget:
            detail = ", ".join(
                f"{s.model}:{s.holds // MB}MB" for s in self.servers.values() if s.alive
            )
            self.ooms.append(
                f"{why}: device holds {self.used // MB}MB > {self.budget // MB}MB ({detail})"
            )

    def measure(self, pid: int | None) -> int | None:
        """NVML's figure for ``pid``: true, failing (None) or lagging (the previous figure)."""
        server = self.servers.get(pid) if pid is not None else None
        if server is None or not server.alive or self.nvml == "fail":
            if server is not None:
                self.unmeasured.add(server.model)
            return None
        if self.nvml == "lag":
            self.unmeasured.add(server.model)
            return self.last_seen.get(server.pid)
        self.unmeasured.discard(server.model)
        self.last_seen[server.pid] = server.holds
        return server.holds


@dataclass
class Script:
    """What a backend's next operations do; each entry is used once, then the default."""

    loads: list[tuple[LoadOutcome, float]] = field(default_factory=list)
    sleeps: list[SleepOutcome] = field(default_factory=list)
    wakes: list[bool] = field(default_factory=list)
    """True: the wake succeeds; False: it fails."""


_pids = itertools.count(10_000)


class FakeBackend(ProcessBackend):
    """A process backend whose server lives in :class:`FakeDevice`, on the virtual clock."""

    LOAD_S = 1.0
    SLEEP_S = 0.3
    WAKE_S = 0.2
    STOP_S = 0.05

    def __init__(
        self,
        name: str,
        device: FakeDevice,
        *,
        footprint: int,
        sleep_keeps: int,
        sleep_mode: bool,
        start_timeout_s: float,
    ) -> None:
        super().__init__(name, self._no_launch, sleep_mode=sleep_mode)
        self.device = device
        self.footprint = footprint
        self.sleep_keeps = sleep_keeps
        self.start_timeout_s = start_timeout_s
        self.script = Script()
        self.server: FakeServer | None = None
        self.starts = 0
        self.twice: list[str] = []
        """Starts made while another server of this model still lived (must stay empty)."""
        self.events: list[tuple[float, str]] = []
        """Faults as they happened: a load scripted to fail, hang or come back larger when it
        was used, a start that failed, a failed wake or sleep, a kill, a freeze (with when)."""
        self.servers: list[FakeServer] = []
        """Every server started for this model, in order."""

    @staticmethod
    def _now() -> float:
        return _loop_time()

    @staticmethod
    def _no_launch() -> Any:
        raise AssertionError("a fake backend launches no process")

    @property
    def pid(self) -> int | None:
        """The fake server's pid while one is started (dead or alive, as a real process)."""
        return self.server.pid if self.server is not None else None

    def alive(self) -> bool:
        """Whether the fake server lives."""
        return self.server is not None and self.server.alive

    def log_path(self) -> Path | None:
        """No log: nothing ran."""
        return None

    async def start(self) -> None:
        """Start a fake server: it holds its bytes from the moment it is healthy."""
        if self.device.live(self.name):
            self.twice.append(f"start of {self.name} while a server of it lives")
        outcome, seconds = self.script.loads.pop(0) if self.script.loads else ("ok", self.LOAD_S)
        if outcome != "ok":
            self.events.append((self._now(), f"load {outcome}"))
        self.starts += 1
        server = FakeServer(
            next(_pids), self.name, declared=self.footprint, declared_asleep=self.sleep_keeps
        )
        self.device.servers[server.pid] = server
        self.servers.append(server)
        self.server = server
        self.api_base = f"http://{self.name}.{server.pid}.fake/v1"
        self.device.starting += 1
        self.device.most_starting = max(self.device.most_starting, self.device.starting)
        try:
            if outcome == "hang":  # never healthy: ManagedProcess gives up at its timeout
                await asyncio.sleep(self.start_timeout_s)
                await self._give_up(server)
            await asyncio.sleep(seconds)
            running = await server.until_running(self.start_timeout_s - seconds)
            if not running and server.alive:  # frozen: never answers its health check
                await self._give_up(server)
            if outcome == "fail" or not server.alive:
                server.die()
                self.events.append((self._now(), "start failed"))
                raise BackendError(f"{self.name}: server did not start: exited with code 1")
            size = self.footprint * 3 // 2 if outcome == "larger" else self.footprint
            self.device.set_holds(server, size, f"{self.name} loaded")
        except asyncio.CancelledError:
            server.die()
            raise
        finally:
            self.device.starting -= 1

    async def _give_up(self, server: FakeServer) -> NoReturn:
        """A start that never became healthy: ManagedProcess stops it (TERM, grace, KILL)."""
        await asyncio.sleep(TERM_GRACE_S if server.frozen else self.STOP_S)
        server.die()
        self.events.append((self._now(), "start failed"))
        raise BackendError(
            f"{self.name}: server did not start: not healthy within {self.start_timeout_s:g} s"
        )

    async def stop(self) -> None:
        """Stop the fake server; the driver frees what it held.

        TERM, then KILL after the grace: a frozen server cannot answer TERM, so it sits the
        grace out, unless the gateway knows it hung (``hung``) and kills it at once.
        """
        server = self.server
        if server is not None and server.alive:
            known_hung = bool(getattr(self, "hung", False))
            grace = TERM_GRACE_S if server.frozen and not known_hung else 0.0
            await asyncio.sleep(self.STOP_S + grace)
            server.die()
            self.device.check(f"{self.name} stopped")

    async def sleep(self, client: httpx.AsyncClient, level: int) -> None:
        """Sleep: keep the declared remains, more with ``keeps_more``, or fail."""
        del client, level
        outcome = self.script.sleeps.pop(0) if self.script.sleeps else "ok"
        if outcome != "ok":
            self.events.append((self._now(), f"sleep {outcome}"))
        server = self._serving("sleep")
        await asyncio.sleep(self.SLEEP_S)
        if not await server.until_running(CALL_TIMEOUT_S) and server.alive:
            raise BackendError(f"{self.name}: POST /sleep failed: ReadTimeout")
        if outcome == "fail" or not server.alive:
            raise BackendError(f"{self.name}: POST /sleep answered 500")
        keeps = self.sleep_keeps * 3 if outcome == "keeps_more" else self.sleep_keeps
        server.sleeping = True
        self.device.set_holds(server, min(keeps, server.holds), f"{self.name} slept")

    async def wake(self, client: httpx.AsyncClient, level: int) -> None:
        """Wake: hold the whole footprint again, or fail (the server stays asleep)."""
        del client, level
        succeeds = self.script.wakes.pop(0) if self.script.wakes else True
        if not succeeds:
            self.events.append((self._now(), "wake fail"))
        server = self._serving("wake")
        await asyncio.sleep(self.WAKE_S)
        if not await server.until_running(CALL_TIMEOUT_S) and server.alive:
            raise BackendError(f"{self.name}: POST /wake_up failed: ReadTimeout")
        if not succeeds or not server.alive:
            raise BackendError(f"{self.name}: POST /wake_up answered 500")
        server.sleeping = False
        self.device.set_holds(server, server.declared, f"{self.name} woke")

    def _serving(self, what: str) -> FakeServer:
        if self.server is None or not self.server.alive:
            raise BackendError(f"{self.name}: {what}: no server")
        return self.server

    async def healthy(self, client: httpx.AsyncClient, timeout_s: float = 5.0) -> bool:
        """Whether the server answers its health check within ``timeout_s`` (a frozen one
        does not: the check times out)."""
        del client
        server = self.server
        if server is None or not server.alive:
            return False
        return await server.until_running(timeout_s)

    def run_state(self) -> str:
        """The process state the kernel would report: ``T`` frozen, ``S`` running."""
        server = self.server
        if server is None or not server.alive:
            return ""
        return "T" if server.frozen else "S"

    def kill(self) -> bool:
        """The server process dies (OOM killer, a crash); True if one lived."""
        server = self.server
        if server is None or not server.alive:
            return False
        server.die()
        self.events.append((self._now(), "killed"))
        return True

    def freeze(self) -> bool:
        """The server is stopped by a signal (``SIGSTOP``), alive; True if one lived."""
        if self.server is None or not self.server.freeze():
            return False
        self.events.append((self._now(), "frozen"))
        return True

    def thaw(self) -> bool:
        """A frozen server runs again (``SIGCONT``); True if one was frozen."""
        return self.server is not None and self.server.thaw()

    def frozen_during(self, start: float, end: float) -> bool:
        """Whether a server of this model was frozen at some moment of ``[start, end]``."""
        return any(server.frozen_during(start, end) for server in self.servers)


@dataclass
class Reached:
    """A request that reached a fake server."""

    request_id: str
    model: str
    at: float
    sleeping: bool


class FakeUpstream:
    """The fake servers' HTTP side: answers after the body's ``x_service_s`` virtual seconds.

    A server that is not alive refuses the connection; one that dies while answering breaks
    it. A body vLLM would refuse (``max_tokens`` not a positive integer) gets vLLM's 400.
    """

    def __init__(self, device: FakeDevice, clock: Callable[[], float]) -> None:
        self.device = device
        self.clock = clock
        self.reached: list[Reached] = []

    async def __call__(self, request: httpx.Request) -> httpx.Response:
        host = request.url.host
        model, pid = host.split(".")[0], int(host.split(".")[1])
        server = self.device.servers.get(pid)
        if server is None or not server.alive:
            raise httpx.ConnectError("connection refused", request=request)
        read_s = request.extensions.get("timeout", {}).get("read")
        if request.url.path == "/metrics":  # the proxy's liveness probe: no work counters
            await self._answering(server, request, read_s)
            return httpx.Response(200, text="fake_server 1\n")
        self.reached.append(
            Reached(request.headers.get("x-test-id", ""), model, self.clock(), server.sleeping)
        )
        await self._answering(server, request, read_s)
        try:
            body = json.loads(request.content)
        except ValueError:
            return _answer(400, {"error": {"message": "not JSON", "code": 400}})
        tokens = body.get("max_tokens", 16) if isinstance(body, dict) else None
        if not isinstance(tokens, int) or isinstance(tokens, bool) or tokens < 1:
            message = "max_tokens must be a positive integer"
            return _answer(400, {"error": {"message": message, "code": 400}})
        service_s = body.get("x_service_s", 0.1)
        if body.get("stream") is True:
            headers = {"content-type": "text/event-stream"}
            return httpx.Response(200, headers=headers, stream=_Tokens(server, service_s))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(server.died.wait(), timeout=float(service_s))
        await self._answering(server, request, read_s)
        if not server.alive:
            raise httpx.RemoteProtocolError("server disconnected", request=request)
        answer = {"object": "chat.completion", "model": model, "choices": [{"index": 0}]}
        return _answer(200, answer)

    @staticmethod
    async def _answering(server: FakeServer, request: httpx.Request, read_s: Any) -> None:
        """Wait while ``server`` is frozen: until it runs or dies, or the client's read
        timeout passes (then ``httpx.ReadTimeout``, as a real client raises)."""
        if not await server.until_running(read_s) and server.alive:
            raise httpx.ReadTimeout("timed out", request=request)


class _Tokens(httpx.AsyncByteStream):
    """A streamed answer: a first event at once, the rest after the service time, cut off
    (``httpx.ReadError``) if the server dies meanwhile."""

    def __init__(self, server: FakeServer, service_s: float) -> None:
        self.server = server
        self.service_s = service_s

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield b'data: {"choices": [{"delta": {"content": "hi"}}]}\n\n'
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.server.died.wait(), timeout=self.service_s)
        await self.server.until_running(None)  # frozen: the rest waits (no read timeout)
        if not self.server.alive:
            raise httpx.ReadError("server disconnected mid-stream")
        yield b"data: [DONE]\n\n"


def _answer(status: int, body: object) -> httpx.Response:
    """A response read as a real server's is: a stream not yet consumed."""
    data = json.dumps(body).encode()
    headers = {"content-type": "application/json", "content-length": str(len(data))}
    return httpx.Response(status, headers=headers, stream=httpx.ByteStream(data))


@dataclass(frozen=True)
class ModelSpec:
    """One managed model of the fake gateway."""

    name: str
    footprint: int
    swap: Literal["stop", "sleep"] = "stop"
    sleep_level: int = 1
    sleep_keeps: int = 0


@dataclass
class VirtualGateway:
    """A :class:`GatewayService` on a :class:`VirtualLoop` with fake backends and device."""

    loop: VirtualLoop
    service: GatewayService
    device: FakeDevice
    backends: dict[str, FakeBackend]
    upstream: FakeUpstream

    @property
    def now(self) -> float:
        return self.loop.time()


def make_setup(
    specs: list[ModelSpec],
    budget: int,
    *,
    host_budget: int,
    device: Device,
    scheduling: dict[str, Any],
    start_timeout_s: float,
) -> GatewaySetup:
    """A validated setup for ``specs`` (``command`` models whose command is never run)."""
    models = []
    for spec in specs:
        entry: dict[str, Any] = {
            "name": spec.name,
            "backend": "command",
            "command": ["false"],
            "footprint": spec.footprint,
            "swap": spec.swap,
            "start_timeout_s": start_timeout_s,
            "load_estimate_s": FakeBackend.LOAD_S,
        }
        if spec.swap == "sleep":
            entry.update(sleep_level=spec.sleep_level, sleep_device_footprint=spec.sleep_keeps)
        models.append(entry)
    raw = {"device": str(device), "budget": {"bytes": budget}, "scheduling": scheduling}
    config = parse_config({**raw, "models": models}, origin="virtual.yaml")
    return GatewaySetup(
        config=config,
        origin="virtual.yaml",
        device=device,
        budget=Budget(budget, host_budget, "budget.bytes"),
        state_dir=Path("/nonexistent/state"),
        models_dir=Path("/nonexistent/models"),
    )


@contextlib.contextmanager
def virtual_gateway(
    specs: list[ModelSpec],
    budget: int,
    *,
    host_budget: int = 10**12,
    device: Device = Device.CUDA,
    scheduling: dict[str, Any] | None = None,
    start_timeout_s: float = 5.0,
) -> Iterator[VirtualGateway]:
    """A started virtual gateway; closed (every fake server stopped) on exit."""
    loop = VirtualLoop()
    clock = _Clock(loop)
    fake = FakeDevice(budget)
    saved: list[tuple[object, str, object]] = []

    def patch(target: object, name: str, value: object) -> None:
        saved.append((target, name, getattr(target, name)))
        setattr(target, name, value)

    async def inline(func: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        return func(*args, **kwargs)

    def measure(pid: int | None, *_: Any) -> int | None:
        return fake.measure(pid)

    def mark(index: int = 0, held: int = 0) -> DeviceMark | None:
        del index
        return None if fake.nvml == "fail" else DeviceMark(fake.used, held)

    modules = (slot_module, swap_module, residency_module, service_module, proxy_module)
    for module in (*modules, health_module):
        patch(module, "time", clock)
    patch(asyncio, "to_thread", inline)
    patch(residency_module, "measure_footprint", measure)
    patch(residency_module, "device_mark", mark)
    try:
        with structlog.testing.capture_logs():
            setup = make_setup(
                specs,
                budget,
                host_budget=host_budget,
                device=device,
                scheduling=scheduling or {},
                start_timeout_s=start_timeout_s,
            )
            asyncio.set_event_loop(loop)
            service = loop.run_until_complete(_service(setup))
            backends = {}
            for spec in specs:
                backend = FakeBackend(
                    spec.name,
                    fake,
                    footprint=spec.footprint,
                    sleep_keeps=spec.sleep_keeps,
                    sleep_mode=spec.swap == "sleep",
                    start_timeout_s=start_timeout_s,
                )
                slot = service.slots[spec.name]
                slot.backend = backend
                slot.__class__ = TrackedSlot
                backends[spec.name] = backend
            upstream = FakeUpstream(fake, loop.time)
            # the service's own timeouts (none to read: liveness decides), not httpx's 5 s
            service.client = httpx.AsyncClient(
                transport=httpx.MockTransport(upstream), timeout=httpx.Timeout(None, connect=10.0)
            )
            loop.run_until_complete(service.start())
            gateway = VirtualGateway(loop, service, fake, backends, upstream)
            try:
                yield gateway
            finally:
                loop.run_until_complete(service.close())
    finally:
        loop.close()
        asyncio.set_event_loop(None)
        for target, name, value in reversed(saved):
            setattr(target, name, value)


async def _service(setup: GatewaySetup) -> GatewayService:
    service = GatewayService(setup)
    await service.client.aclose()  # replaced by the fake upstream's client
    return service


def chat_body(model: str, *, service_s: float = 0.1, **extra: Any) -> bytes:
    """A chat request for ``model`` that its fake server answers in ``service_s``."""
    body = {"model": model, "messages": [{"role": "user", "content": "hi"}], **extra}
    return json.dumps({**body, "x_service_s": service_s}).encode()
