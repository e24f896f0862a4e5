"""Residency transitions: evict, drain, sleep, stop, wake and start one model, with accounting.

These are the steps the swap scheduler takes while it holds the device mutex; nothing here
decides what to do or takes a lock: when a step needs room (a server measured larger than
declared, host RAM for a model going to sleep) it asks the scheduler's policy, through the
``room`` and ``host_room`` callables it was given. Each step keeps the ledger conservative:
bytes are reserved before a server starts or wakes and released only after it stopped or slept,
so what runs never exceeds what is reserved. Every step logs a structlog event with model,
bytes and seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Coroutine
from typing import Any, NoReturn

import httpx

from runtime.gateway.backends import BackendError, ProcessBackend
from runtime.gateway.budget import DeviceMark, device_mark, measure_footprint
from runtime.gateway.config import format_bytes
from runtime.gateway.errors import ModelUnavailableError
from runtime.gateway.health import HealthWatch
from runtime.gateway.ledger import BudgetExceededError, MemoryLedger
from runtime.gateway.metrics import GatewayMetrics
from runtime.gateway.policies import ModelState, Room
from runtime.gateway.slot import ModelSlot
from runtime.logs import get_logger
from runtime.settings import Device

_log = get_logger("gateway")
_ROOM_ROUNDS = 3
"""Eviction rounds to make room for a server measured larger than declared (a victim may
keep more asleep than expected: then another round stops sleeping models)."""


class Residency:
    """Carries out residency changes on the device's slots; the caller holds the mutex."""

    def __init__(
        self,
        slots: dict[str, ModelSlot],
        ledger: MemoryLedger,
        metrics: GatewayMetrics,
        client: httpx.AsyncClient,
        *,
        drain_timeout_s: float | None,
        device: Device,
        gpu_index: int = 0,
        on_ready: Callable[[ModelSlot], None] | None = None,
        hung_after_s: float | None = None,
        room: Callable[[ModelSlot, int], Room | None],
        host_room: Callable[[ModelSlot, int], tuple[str, ...] | None],
    ) -> None:
        self.slots = slots
        self.room = room
        """The policy's victims for a model at a size (``SwapScheduler.room_for``)."""
        self.host_room = host_room
        """The sleeping models the policy stops for host RAM (``SwapScheduler.host_room_for``)."""
        self.hung_after_s = hung_after_s
        """A sleep or wake call whose server answers no health check this long is given up
        (the server is hung: it is then stopped at once, without its TERM grace)."""
        self.ledger = ledger
        self.metrics = metrics
        self.drain_timeout_s = drain_timeout_s
        self.device = device
        self.gpu_index = gpu_index
        self._client = client
        self._on_ready = on_ready

    async def evict(self, victims: list[ModelSlot], *, reason: str, stop: bool = False) -> None:
        """Stop admitting to ``victims``, drain them together, then sleep or stop each.

        A sleeping victim (it keeps some device memory) is stopped: nothing to drain. With
        ``stop`` a sleep-mode victim is stopped too: slept, its remains would leave too little.
        """
        for asleep in [v for v in victims if v.state is ModelState.SLEEPING]:
            await self.stop(asleep, reason)
        victims = [v for v in victims if v.state is not ModelState.STOPPED]
        for victim in victims:
            victim.state = ModelState.STOPPING
            _log.info(
                "evict",
                model=victim.name,
                bytes=victim.footprint,
                in_flight=victim.in_flight,
                reason=reason,
                resident_s=round(time.monotonic() - victim.loaded_at, 3),
            )
        await asyncio.gather(*(self.drain(victim, reason) for victim in victims))
        for victim in victims:
            if victim.swap == "sleep" and not stop and await self.sleep(victim, reason):
                continue
            await self.stop(victim, reason)

    async def drain(self, slot: ModelSlot, reason: str) -> None:
        """Wait for in-flight requests while they make progress; then fail the rest.

        Draining takes no new admissions; the requests already running finish however long
        they stream. They are cut only when neither they nor the model made progress for
        ``request_idle_s`` (nothing relayed, no work on the server: they hang), or at
        ``drain_timeout_s`` when a hard cap is configured. Each request cut is counted
        (``edgeswarm_gateway_drain_cut_total``) and logged: a swap that cuts work costs it.
        """
        started, count = time.monotonic(), slot.in_flight
        slot.progress.touch(started)
        why = await self._drained(slot)
        failed = 0
        if why is not None:
            failed = slot.revoke_all(f"model {slot.name} was unloaded ({reason}) and {why}")
            self.metrics.drain_cut(slot.name, failed)
        _log.info(
            "drain",
            model=slot.name,
            bytes=slot.footprint,
            in_flight=count,
            failed=failed,
            seconds=round(time.monotonic() - started, 3),
        )

    async def _drained(self, slot: ModelSlot) -> str | None:
        """None once ``slot`` is idle; else why its remaining requests must be cut."""
        started = time.monotonic()
        cap = self.drain_timeout_s
        idle_s = slot.request_idle_s
        while not slot.idle.is_set():
            step = min(1.0, idle_s / 4)
            if cap is not None:
                step = min(step, max(0.0, started + cap - time.monotonic()))
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(step):
                    await slot.idle.wait()
            if slot.idle.is_set():
                return None
            if cap is not None and time.monotonic() - started >= cap:
                return f"this request did not finish within the drain timeout of {cap:g} s"
            if slot.progress.silent_for() >= idle_s:
                return f"this request made no progress for {idle_s:g} s while the model drained"
        return None

    async def sleep(self, slot: ModelSlot, reason: str = "") -> bool:
        """Sleep ``slot`` (vLLM sleep mode); False when it cannot, so the caller stops it."""
        backend = slot.backend
        if not isinstance(backend, ProcessBackend) or not backend.alive():
            return False
        host_need = slot.sleep_host_footprint if slot.sleep_level == 1 else 0
        if not await self._make_host_room(slot, host_need):
            return False
        self.ledger.reserve(slot.name, host_need, host=True)
        mark = await self._mark(self.ledger.device.get(slot.name, slot.footprint))
        started = time.monotonic()
        try:
            await self._watched(backend, backend.sleep(self._client, slot.sleep_level))
        except Exception as err:
            self.ledger.release(slot.name, host=True)
            _log.warning("sleep_failed", model=slot.name, error=str(err))
            return False
        seconds = time.monotonic() - started
        kept = await self._sleeping_remains(slot, backend, mark)
        freed = self.ledger.release(slot.name)
        if kept:
            self.ledger.reserve(slot.name, kept)  # fits: it held more a moment ago
        slot.sleep_device_held = slot.sleep_device_measured = kept
        slot.state = ModelState.SLEEPING
        self.metrics.swap(slot.name, "sleep", seconds, reason)
        _log.info(
            "sleep",
            model=slot.name,
            bytes=freed - kept,
            kept_bytes=kept,
            host_bytes=host_need,
            level=slot.sleep_level,
            seconds=round(seconds, 3),
        )
        return True

    async def _watched(self, backend: ProcessBackend, call: Coroutine[Any, Any, None]) -> None:
        """Run a sleep or wake ``call`` while probing the server's health beside it.

        Both run under the device mutex, and a frozen (SIGSTOP) or deadlocked server answers
        neither: the call would wait out its client timeout (minutes) and the stop its TERM
        grace while every other model's requests waited, cut for no progress (found by the
        state machine: ``test_a_frozen_victim_does_not_hold_the_device_for_its_sleep_timeout``).
        A server that sleeps or wakes still answers ``/health``, so no answer for
        ``hung_after_s`` gives the call up (``BackendError``), the server marked hung.
        """
        task = asyncio.ensure_future(call)
        limit = self.hung_after_s
        watch = None if limit is None else HealthWatch(backend, self._client, limit)
        try:
            while watch is not None and not task.done():
                watch.poke()
                await asyncio.wait({task}, timeout=min(1.0, watch.limit_s / 4))
                if not task.done() and watch.silent():
                    backend.hung = True
                    raise BackendError(
                        f"{backend.name}: its server answered no health check for "
                        f"{watch.silent_for():.0f} s (process state "
                        f"{backend.run_state() or 'unknown'}): hung"
                    )
            await task
        finally:
            if watch is not None:
                await watch.close()
            if not task.done():
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task

    async def _mark(self, held: int) -> DeviceMark | None:
        """On CUDA, the device's used bytes before a load or sleep (see ``gpu_bytes``)."""
        if self.device is not Device.CUDA:
            return None
        return await asyncio.to_thread(device_mark, self.gpu_index, held)

    async def _sleeping_remains(
        self, slot: ModelSlot, backend: ProcessBackend, mark: DeviceMark | None
    ) -> int:
        """Device bytes a slept server still holds: measured on CUDA, else as declared.

        vLLM's sleep frees weights and KV cache but keeps its CUDA context, graph pools and
        some buffers; uncounted, several sleeping servers would overrun the budget on wake.
        """
        measured = None
        if self.device is Device.CUDA:
            measured = await asyncio.to_thread(
                measure_footprint, backend.pid, self.device, self.gpu_index, mark
            )
        kept = slot.sleep_device_footprint if measured is None else measured
        return min(kept, self.ledger.device.get(slot.name, slot.footprint))

    async def _make_host_room(self, slot: ModelSlot, need: int) -> bool:
        """Stop the sleeping models the policy picks until ``need`` host bytes are free."""
        if self.ledger.fits(need, host=True):
            return True
        victims = self.host_room(slot, need)
        if victims is None:
            return False
        for name in victims:
            await self.stop(self.slots[name], f"host RAM for sleeping {slot.name}")
        return True

    async def stop(self, slot: ModelSlot, reason: str) -> None:
        """Stop the server's process group, then release its bytes."""
        backend = slot.backend
        running = isinstance(backend, ProcessBackend) and backend.pid is not None
        if running or self.ledger.holds(slot.name) or slot.name in self.ledger.host:
            slot.state = ModelState.STOPPING
            started = time.monotonic()
            if isinstance(backend, ProcessBackend):
                if backend.run_state() in ("T", "t"):  # stopped (SIGSTOP): TERM waits it out
                    backend.hung = True
                await backend.stop()
            freed = self.ledger.release(slot.name) + self.ledger.release(slot.name, host=True)
            slot.sleep_device_held = 0
            seconds = time.monotonic() - started
            self.metrics.swap(slot.name, "stop", seconds, reason)
            _log.info(
                "unload", model=slot.name, bytes=freed, reason=reason, seconds=round(seconds, 3)
            )
        slot.state = ModelState.STOPPED if slot.failure is None else ModelState.FAILED

    def failed_holding(self) -> list[ModelSlot]:
        """Failed models whose bytes are still reserved (their remains not yet stopped)."""
        return [
            s
            for s in self.slots.values()
            if s.state is ModelState.FAILED
            and (self.ledger.holds(s.name) or s.name in self.ledger.host)
        ]

    async def reap_failed(self) -> None:
        """Stop the remains of failed servers and release their bytes."""
        for slot in self.failed_holding():
            await self.stop(slot, "reap failed server")

    async def bring_up(self, slot: ModelSlot) -> None:
        """Make ``slot`` ready: wake it if it sleeps, else start a fresh server."""
        await self.reap_failed()  # a server may have died while victims drained
        if slot.state is ModelState.SLEEPING and await self._wake(slot):
            return
        await self._start(slot)

    def _reserve(self, slot: ModelSlot) -> None:
        try:
            self.ledger.reserve(slot.name, slot.footprint)
        except BudgetExceededError as err:
            raise ModelUnavailableError(f"model {slot.name} cannot be loaded: {err}") from None

    async def _wake(self, slot: ModelSlot) -> bool:
        backend = slot.backend
        if not isinstance(backend, ProcessBackend) or not backend.alive():
            return False
        try:  # what it kept asleep becomes part of the footprint: counted until then
            self.ledger.grow(slot.name, slot.footprint)
        except BudgetExceededError as err:
            raise ModelUnavailableError(f"model {slot.name} cannot be loaded: {err}") from None
        slot.sleep_device_held = 0
        slot.state = ModelState.STARTING
        started = time.monotonic()
        try:
            await self._watched(backend, backend.wake(self._client, slot.sleep_level))
        except Exception as err:
            # Its server still holds its remains (or more: a wake may fail half-way): the
            # bytes stay reserved until ``_start`` has stopped it. Released here, the ledger
            # counted less than the device held for the stop's length, a TERM grace when the
            # server is frozen (found by the state machine:
            # ``test_a_failed_wake_keeps_the_remains_counted_until_the_server_stopped``).
            _log.warning("wake_failed", model=slot.name, error=str(err))
            return False
        seconds = time.monotonic() - started
        self.ledger.release(slot.name, host=True)
        slot.reload_s = seconds
        self._became_ready(slot, seconds, "wake")
        _log.info("wake", model=slot.name, bytes=slot.footprint, seconds=round(seconds, 3))
        return True

    async def _start(self, slot: ModelSlot) -> None:
        backend = slot.backend
        if not isinstance(backend, ProcessBackend):
            raise ModelUnavailableError(f"model {slot.name} is remote and cannot be started")
        await backend.stop()  # leftovers of a failed or sleeping server
        self.ledger.release(slot.name)
        self.ledger.release(slot.name, host=True)
        slot.sleep_device_held = 0
        self._reserve(slot)
        slot.state = ModelState.STARTING
        _log.info("load_start", model=slot.name, bytes=slot.footprint)
        mark = await self._mark(0)
        started = time.monotonic()
        try:
            await backend.start()
        except asyncio.CancelledError:
            await backend.stop()
            self.ledger.release(slot.name)
            slot.state = ModelState.STOPPED
            raise
        except Exception as err:
            await self._start_failed(slot, err, time.monotonic() - started)
        seconds = time.monotonic() - started
        if slot.swap != "sleep":
            slot.reload_s = seconds
        await self._settle_footprint(slot, backend, seconds, mark)
        self._became_ready(slot, seconds, "load")

    async def _settle_footprint(
        self, slot: ModelSlot, backend: ProcessBackend, seconds: float, mark: DeviceMark | None
    ) -> None:
        """Measure what the server holds; on CUDA account the larger figure, within budget.

        Runs before the model admits anything. A measured footprint above the declared one
        replaces it in the ledger only after other models made room (cost-aware eviction),
        so the ledger never breaks the budget; a model that alone exceeds the budget is
        stopped and marked failed with a message naming both figures.
        """
        measured = await asyncio.to_thread(
            measure_footprint, backend.pid, self.device, self.gpu_index, mark
        )
        _log.info(
            "load_end",
            model=slot.name,
            bytes=slot.footprint,
            measured_bytes=measured,
            seconds=round(seconds, 3),
            pid=backend.pid,
        )
        if self.device is not Device.CUDA or measured is None or measured <= slot.footprint:
            return
        _log.warning(
            "footprint_underdeclared",
            model=slot.name,
            bytes=slot.footprint,
            measured_bytes=measured,
        )
        for _ in range(_ROOM_ROUNDS):
            if self.ledger.device_used - self.ledger.device[slot.name] + measured <= (
                self.ledger.device_budget
            ):
                slot.footprint = measured
                self.ledger.resize(slot.name, measured)
                return
            room = self.room(slot, measured)
            if room is None:
                break
            victims = [self.slots[name] for name in room.victims]
            await self.evict(victims, reason=f"{slot.name} measured", stop=room.stop)
        error = RuntimeError(
            f"its server holds {format_bytes(measured)} after loading, more than its "
            f"declared footprint of {format_bytes(slot.footprint)} and more than the "
            f"budget leaves it; raise `footprint` in the config to at least {measured}"
        )
        await self._start_failed(slot, error, seconds)

    async def _start_failed(self, slot: ModelSlot, err: Exception, seconds: float) -> NoReturn:
        if isinstance(slot.backend, ProcessBackend):
            await slot.backend.stop()
        self.ledger.release(slot.name)
        slot.state = ModelState.FAILED
        slot.failure = str(err)
        slot.start_failed_at = time.monotonic()
        self.metrics.swap(slot.name, "load_failed", seconds, str(err))
        _log.error(
            "load_failed",
            model=slot.name,
            bytes=slot.footprint,
            seconds=round(seconds, 3),
            error=str(err),
        )
        raise ModelUnavailableError(f"model {slot.name} failed to start: {err}") from err

    def _became_ready(self, slot: ModelSlot, seconds: float, kind: str) -> None:
        now = time.monotonic()
        slot.state = ModelState.READY
        slot.failure = slot.start_failed_at = None
        slot.loaded_at = slot.last_used = now
        slot.progress.touch(now)
        self.metrics.swap(slot.name, kind, seconds, "a request or a load call was waiting")
        if self._on_ready is not None:
            self._on_ready(slot)
