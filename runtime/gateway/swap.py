"""The swap scheduler: admits requests, and owns every load, unload, sleep and wake.

Admission is cheap and concurrent: a request to a ready model is admitted at once, without any
lock (the policy says so), and runs beside every other one, up to the model's
``max_in_flight``. Anything else joins its model's queue and wakes the coordinator, one task
that asks the policy for a plan and carries it out; a model at its ``max_in_flight`` takes a
queued request each time one of its requests ends (a remote model's queue is served then, the
coordinator plans only for managed models).

The device mutex (an ``asyncio.Lock``) is held for every change of what is resident: one load,
wake, sleep or stop at a time. Inside it, :meth:`SwapScheduler.ensure_ready` is the one place
that decides to start a model: it asks the policy for victims, marks them ``stopping`` (they
stop admitting at once), drains their in-flight requests (bounded; then those fail with a clear
error), sleeps or stops them, releases their bytes in the ledger, reserves the target's bytes,
and only then starts or wakes the target. The ledger refuses any reservation that would break
the budget, so the invariant holds under every interleaving.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import math
import re
import time
from typing import Any

import httpx

from runtime.gateway.backends import ProcessBackend
from runtime.gateway.config import MODEL_NAME_PATTERN, SchedulingConfig
from runtime.gateway.errors import (
    BadRequestError,
    DeadlineExceededError,
    ModelUnavailableError,
    QueueFullError,
    UnknownModelError,
)
from runtime.gateway.eviction import ResidentModel
from runtime.gateway.health import HealthWatch
from runtime.gateway.ledger import MemoryLedger
from runtime.gateway.metrics import GatewayMetrics
from runtime.gateway.policies import DeviceView, ModelState, Room, SchedulingPolicy, make_room
from runtime.gateway.residency import Residency
from runtime.gateway.slot import Admission, ModelSlot, Waiter
from runtime.logs import get_logger
from runtime.settings import Device

_MODEL_NAME = re.compile(MODEL_NAME_PATTERN)
_log = get_logger("gateway")
_DEATH_CHECKS = 10
_DEATH_CHECK_INTERVAL_S = 0.05
_EVICTION_ROUNDS = 3


class SwapScheduler:
    """Admission for every model, and the single owner of the device's swaps."""

    def __init__(
        self,
        slots: dict[str, ModelSlot],
        ledger: MemoryLedger,
        policy: SchedulingPolicy,
        scheduling: SchedulingConfig,
        client: httpx.AsyncClient,
        *,
        device: Device = Device.CPU,
        gpu_index: int = 0,
        metrics: GatewayMetrics | None = None,
    ) -> None:
        self.slots = slots
        self.ledger = ledger
        self.policy = policy
        self.scheduling = scheduling
        self.metrics = metrics or GatewayMetrics()
        self.device = device
        self.gpu_index = gpu_index
        self.residency = Residency(
            slots,
            ledger,
            self.metrics,
            client,
            drain_timeout_s=scheduling.drain_timeout_s,
            device=device,
            gpu_index=gpu_index,
            on_ready=self._on_idle,
            hung_after_s=scheduling.hung_after_s,
            room=self.room_for,
            host_room=self.host_room_for,
        )
        self._client = client
        self._health: dict[str, HealthWatch] = {}
        """Each ready model's server's health checks (dropped when it leaves ready)."""
        self._device_mutex = asyncio.Lock()
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._closing = False
        for slot in slots.values():
            slot.on_idle = self._on_idle
            slot.on_room = self._on_room

    # -- life cycle ---------------------------------------------------------------------

    async def start(self) -> None:
        """Start the coordinator and the watchdog."""
        self._tasks += [
            asyncio.create_task(self._coordinate(), name="gateway-coordinator"),
            asyncio.create_task(self._watch(), name="gateway-watchdog"),
        ]

    async def close(self) -> None:
        """Fail what waits, stop every server, release every byte."""
        self._closing = True
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        closing = ModelUnavailableError("the gateway is shutting down")
        for slot in self.slots.values():
            self._fail_waiters(slot, closing)
            slot.revoke_all("the gateway is shutting down")
        managed = [s for s in self.slots.values() if isinstance(s.backend, ProcessBackend)]
        await asyncio.gather(*(self.residency.stop(s, "gateway shutdown") for s in managed))

    # -- admission (any number of concurrent callers) -----------------------------------

    def slot(self, name: str) -> ModelSlot:
        """The model called ``name``; a 400 for a name no model can have, else a 404."""
        slot = self.slots.get(name)
        if slot is not None:
            return slot
        if not _MODEL_NAME.fullmatch(name):
            raise BadRequestError(
                f"{name[:130]!r} is not a model name: names start with a letter or digit and "
                "hold only letters, digits and . _ : / - (128 characters at most)"
            )
        known = ", ".join(sorted(self.slots))
        raise UnknownModelError(f"model {name!r} is not served here; known: {known}")

    async def admit(self, name: str, *, timeout_s: float | None = None) -> Admission:
        """Admit a request to ``name`` once its model is ready; it runs until released.

        Raises:
            UnknownModelError: no such model.
            QueueFullError: the queue is full (429 with Retry-After).
            DeadlineExceededError: the model was not ready before the deadline.
            ModelUnavailableError: the model failed to start, or the gateway is stopping.
        """
        slot = self.slot(name)
        if self._closing:
            raise ModelUnavailableError("the gateway is shutting down")
        now = time.monotonic()
        direct = not slot.managed or self.policy.admits_directly(slot.view(now))
        if direct and slot.has_room():
            self.metrics.admitted(name, "direct")
            return slot.admit()
        self._refuse_while_cooling(slot, now)
        if self.queued_total() >= self.scheduling.max_queue:
            self.metrics.admitted(name, "rejected")
            raise QueueFullError(
                f"the gateway queue is full ({self.scheduling.max_queue} requests waiting); "
                "retry later",
                retry_after_s=self._retry_after(slot),
            )
        cap_s = timeout_s if timeout_s is not None else slot.request_timeout_s
        deadline = math.inf if cap_s is None else now + cap_s
        waiter = Waiter(asyncio.get_running_loop().create_future(), now, deadline)
        slot.waiters.append(waiter)
        self._wake.set()
        try:
            admission = await self._wait_alive(waiter, slot, cap_s)
        except BaseException:
            self._abandon(waiter)
            raise
        self.metrics.admitted(name, "queued", time.monotonic() - now)
        return admission

    async def _wait_alive(self, waiter: Waiter, slot: ModelSlot, cap_s: float | None) -> Admission:
        """Wait for ``waiter``'s admission while the gateway makes progress.

        Waiting behind a model that streams, drains or loads is not being stuck: the wait
        ends with a 504 only when no model made progress for the model's ``request_idle_s``
        (nothing relayed, no load under way), or at the hard cap ``cap_s`` if one is set.
        """
        idle_s = slot.request_idle_s
        while True:
            left = waiter.deadline - time.monotonic()
            step = max(0.0, min(left, idle_s / 4, 1.0))
            try:
                async with asyncio.timeout(step):
                    return await asyncio.shield(waiter.future)
            except TimeoutError:
                pass
            state = f"state {slot.state}, {self.queued_total()} queued"
            if time.monotonic() >= waiter.deadline:
                raise DeadlineExceededError(
                    f"model {slot.name} was not ready within the request deadline of "
                    f"{cap_s:g} s ({state})"
                ) from None
            silent = min(self.silent_for(), time.monotonic() - waiter.enqueued)
            if silent >= idle_s:
                raise DeadlineExceededError(
                    f"model {slot.name} was not ready, and the gateway made no progress for "
                    f"{silent:.0f} s (idle limit {idle_s:g} s; {state})"
                ) from None

    def silent_for(self) -> float:
        """Seconds since any model made progress (0 while one loads: loads are bounded)."""
        if any(slot.busy_loading() for slot in self.slots.values()):
            return 0.0
        return min(slot.progress.silent_for() for slot in self.slots.values())

    def progress_of(self, name: str) -> dict[str, object]:
        """How ``name``'s requests progress, for clients that watch their calls' liveness.

        ``work`` grows whenever they progress: a byte relayed or work seen on the model's
        server once it is ready; before that (a request waiting for a swap) any model's
        progress, and every second while a load is under way.
        """
        slot = self.slot(name)
        ready = slot.state is ModelState.READY or not slot.managed
        watched = [slot] if ready else list(self.slots.values())
        work = sum(s.progress.events for s in watched)
        if not ready and any(s.busy_loading() for s in self.slots.values()):
            work += int(time.monotonic())
        silent = slot.progress.silent_for() if ready else self.silent_for()
        return {"model": name, "state": str(slot.state), "work": work, "silent_s": silent}

    def _refuse_while_cooling(self, slot: ModelSlot, now: float) -> None:
        """A model whose start failed a moment ago is not started again for each request."""
        failed_at = slot.start_failed_at
        if slot.state is not ModelState.FAILED or failed_at is None:
            return
        left = self.scheduling.start_retry_s - (now - failed_at)
        if left > 0:
            raise ModelUnavailableError(
                f"model {slot.name} failed to start {now - failed_at:.0f} s ago "
                f"({slot.failure}); the next start is tried in {left:.0f} s",
                retry_after_s=max(1, math.ceil(left)),
            )

    @staticmethod
    def _abandon(waiter: Waiter) -> None:
        future = waiter.future
        if not future.done():
            future.cancel()
        elif not future.cancelled() and future.exception() is None:
            future.result().release()

    def queued_total(self) -> int:
        """Requests waiting in every model's queue."""
        return sum(len(slot.live_waiters()) for slot in self.slots.values())

    def _retry_after(self, slot: ModelSlot) -> int:
        return max(1, min(60, round(slot.reload_s)))

    async def report_failure(self, name: str, detail: str) -> bool:
        """A request to ``name`` lost its server: True (and marked failed) if the server died.

        A connection can break a moment before the process is seen dead, so look a few times.
        """
        slot = self.slots.get(name)
        if slot is None or not isinstance(slot.backend, ProcessBackend):
            return False
        for _ in range(_DEATH_CHECKS):
            if slot.state is ModelState.FAILED:
                return True
            if not slot.backend.alive():
                if slot.state is ModelState.READY:
                    self._mark_failed(slot, detail)
                return True
            await asyncio.sleep(_DEATH_CHECK_INTERVAL_S)
        return False

    def _mark_failed(self, slot: ModelSlot, detail: str) -> None:
        slot.state = ModelState.FAILED
        slot.failure = detail
        cut = slot.revoke_all(
            f"the server of model {slot.name} died ({detail}); the next request restarts it"
        )
        _log.error(
            "model_failed",
            model=slot.name,
            bytes=self.ledger.device.get(slot.name, 0),
            in_flight_failed=cut,
            resident_s=round(time.monotonic() - slot.loaded_at, 3),
            detail=detail,
        )
        self._wake.set()

    def _on_idle(self, slot: ModelSlot) -> None:
        del slot
        self._wake.set()

    def _on_room(self, slot: ModelSlot) -> None:
        """A request of ``slot`` ended while others queue: admit the next ones."""
        if slot.managed:
            self._wake.set()  # the coordinator admits what its policy allows
            return
        while slot.in_flight < slot.max_in_flight:
            waiter = slot.waiters.popleft() if slot.waiters else None
            if waiter is None:
                return
            if not waiter.future.done():
                waiter.future.set_result(slot.admit())

    # -- coordinator: the one task that carries out plans -------------------------------

    async def _coordinate(self) -> None:
        recheck: float | None = None
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(recheck):
                    await self._wake.wait()
            self._wake.clear()
            try:
                recheck = await self._step()
            except Exception:
                _log.exception("coordinator_error")
                recheck = 1.0

    async def _step(self) -> float | None:
        await self._reap_failed()
        now = time.monotonic()
        plan = self.policy.plan(self.view(now), now)
        for name, count in plan.admit.items():
            self._admit_waiters(self.slots[name], count)
        for name in plan.unload:
            await self._unload_idle(self.slots[name])
        if plan.load is not None:
            await self._load(self.slots[plan.load])
        if plan.load is not None or plan.unload:
            return 0.0
        return plan.recheck_s

    def view(self, now: float) -> DeviceView:
        """Every managed model as the policy sees it."""
        return DeviceView(
            models=tuple(slot.view(now) for slot in self.slots.values() if slot.managed),
            budget=self.ledger.device_budget,
            max_wait_s=self.scheduling.max_wait_s,
            idle_ttl_s=self.scheduling.idle_ttl_s,
            sleep_ttl_s=self.scheduling.sleep_ttl_s,
            linger_s=self.scheduling.linger_s,
        )

    def _admit_waiters(self, slot: ModelSlot, count: int) -> None:
        admitted = 0
        while (
            slot.waiters
            and admitted < count
            and slot.state is ModelState.READY
            and slot.in_flight < slot.max_in_flight
        ):
            waiter = slot.waiters.popleft()
            if not waiter.future.done():
                waiter.future.set_result(slot.admit())
                admitted += 1

    def _fail_waiters(self, slot: ModelSlot, error: Exception) -> None:
        while slot.waiters:
            waiter = slot.waiters.popleft()
            if not waiter.future.done():
                waiter.future.set_exception(error)

    async def _load(self, slot: ModelSlot) -> None:
        try:
            await self.ensure_ready(slot)
        except ModelUnavailableError as err:
            self._fail_waiters(slot, err)

    async def _unload_idle(self, slot: ModelSlot) -> None:
        async with self._device_mutex:
            if slot.in_flight or slot.live_waiters():
                return
            if slot.state is ModelState.READY:
                await self.residency.evict([slot], reason="idle ttl")
            elif slot.state is ModelState.SLEEPING:
                await self.residency.stop(slot, "sleep ttl")

    # -- the device mutex: one change of residency at a time ----------------------------

    async def ensure_ready(self, slot: ModelSlot) -> None:
        """Make ``slot`` resident, evicting what the policy picks; the one place that starts."""
        async with self._device_mutex:
            if slot.state is ModelState.READY:
                return
            await self.residency.reap_failed()
            # A slept victim may keep more than expected (its first sleep, measured): then a
            # second round stops sleeping ones. Rounds are few: each frees or stops models.
            for _ in range(_EVICTION_ROUNDS):
                room = self.room_for(slot)
                if room is None:
                    raise ModelUnavailableError(
                        f"model {slot.name} needs {slot.footprint} bytes; the budget is "
                        f"{self.ledger.device_budget} bytes"
                    )
                if not room.victims:
                    break
                chosen = [self.slots[name] for name in room.victims]
                reason = f"make room for {slot.name}"
                await self.residency.evict(chosen, reason=reason, stop=room.stop)
            await self.residency.bring_up(slot)

    def room_for(self, slot: ModelSlot, size: int | None = None) -> Room | None:
        """What the policy evicts so ``slot`` fits at ``size`` bytes (default: its footprint).

        Asked before a load (:meth:`ensure_ready`) and by the residency when a server
        measures larger than declared (``size``: the measured bytes). Bytes the ledger holds
        for models neither resident nor ``slot`` (a failed server not yet reaped) are not the
        policy's to move: the budget it sees is without them.
        """
        now = time.monotonic()
        view, target = self.view(now), slot.view(now)
        if size is not None:
            target = dataclasses.replace(target, footprint=size)
        movable = {model.name for model in view.resident()} | {slot.name}
        pinned = sum(n for name, n in self.ledger.device.items() if name not in movable)
        if pinned:
            view = dataclasses.replace(view, budget=view.budget - pinned)
        return make_room(self.policy, target, view, now)

    def host_room_for(self, slot: ModelSlot, need: int) -> tuple[str, ...] | None:
        """The sleeping models the policy stops so ``slot`` can sleep in ``need`` host bytes."""
        sleeping = [
            ResidentModel(s.name, nbytes, last_used=s.last_used, reload_s=s.reload_s)
            for s in self.slots.values()
            if (nbytes := self.ledger.host.get(s.name)) is not None
        ]
        target = ResidentModel(slot.name, need)
        return self.policy.host_victims(target, sleeping, self.ledger.host_budget, time.monotonic())

    async def unload(self, name: str) -> ModelState:
        """Unload ``name`` now (drain, then sleep or stop); returns its new state.

        The unload runs to its end even when the caller is cancelled (its client left):
        cut off between ``stopping`` and ``stopped`` it left the model ``stopping`` for good,
        holding its bytes and refusing every later request (found by the state machine,
        ``test_a_cancelled_unload_does_not_leave_its_model_stopping``).
        """
        slot = self.slot(name)
        if not slot.managed:
            raise ModelUnavailableError(f"model {name} is remote: the gateway does not swap it")
        task = asyncio.create_task(self._unload(slot), name=f"unload-{name}")
        self._tasks.append(task)
        task.add_done_callback(self._forget)
        await asyncio.shield(task)
        return slot.state

    def _forget(self, task: asyncio.Task[None]) -> None:
        """Drop a finished unload; its error is the caller's (retrieved here if it left)."""
        with contextlib.suppress(ValueError):
            self._tasks.remove(task)
        if not task.cancelled():
            task.exception()

    async def _unload(self, slot: ModelSlot) -> None:
        """Unload under the mutex, then wake the coordinator.

        Requests that arrived while the model was ``stopping`` queued, and only the
        coordinator loads a model for them: without the wake they waited for some other
        event, up to their deadline (``test_a_request_queued_during_an_unload_is_served``).
        """
        try:
            async with self._device_mutex:
                if slot.state is ModelState.READY:
                    await self.residency.evict([slot], reason="unload requested")
                elif slot.state in (ModelState.SLEEPING, ModelState.FAILED):
                    slot.failure = slot.start_failed_at = None
                    await self.residency.stop(slot, "unload requested")
        finally:
            self._wake.set()

    async def _reap_failed(self) -> None:
        """Stop what is left of failed servers and release their bytes (takes the mutex)."""
        if self.residency.failed_holding():
            async with self._device_mutex:
                await self.residency.reap_failed()

    # -- watchdog -----------------------------------------------------------------------

    async def _watch(self) -> None:
        try:
            while True:
                await asyncio.sleep(self.scheduling.watch_interval_s)
                for slot in self.slots.values():
                    backend = slot.backend
                    if slot.state not in (ModelState.READY, ModelState.SLEEPING):
                        self._forget_health(slot.name)
                        continue
                    if not isinstance(backend, ProcessBackend):
                        continue
                    if not backend.alive():
                        self._mark_failed(slot, f"process exited; log: {backend.log_path()}")
                    elif slot.state is ModelState.READY:
                        self._check_hung(slot, backend)
                    else:
                        self._forget_health(slot.name)
        finally:
            for name in list(self._health):
                self._forget_health(name)

    def _check_hung(self, slot: ModelSlot, backend: ProcessBackend) -> None:
        """Probe a ready server's health; fail it once it is alive but unresponsive.

        Hung: no health answer for ``hung_after_s`` and no progress of its model for as long
        (no byte relayed, no work on its server): a stopped (SIGSTOP) or deadlocked server.
        Its requests would otherwise each wait out their idle limit, and a model waiting to
        swap in behind its drain with them. A busy server answers health late but works, so
        its progress keeps it ready.
        """
        limit = self.scheduling.hung_after_s
        if limit is None:
            return
        watch = self._health.get(slot.name)
        if watch is None or watch.backend is not backend:
            self._forget_health(slot.name)
            watch = self._health[slot.name] = HealthWatch(backend, self._client, limit)
        watch.poke()
        silent = watch.silent_for()
        if silent < limit or slot.progress.silent_for() < limit:
            return
        how = "stopped (SIGSTOP)" if backend.run_state() in ("T", "t") else "hung"
        backend.hung = True
        self._forget_health(slot.name)
        self._mark_failed(
            slot,
            f"alive but answered no health check for {silent:.0f} s and made no progress: "
            f"{how}; log: {backend.log_path()}",
        )

    def _forget_health(self, name: str) -> None:
        watch = self._health.pop(name, None)
        if watch is not None:
            watch.cancel()

    # -- introspection ------------------------------------------------------------------

    def running(self) -> dict[str, Any]:
        """Every model's state, bytes, in-flight and queued requests and last use."""
        now = time.monotonic()
        return {
            "device": str(self.device),
            "policy": self.policy.name,
            "budget_bytes": self.ledger.device_budget,
            "resident_bytes": self.ledger.device_used,
            "host_budget_bytes": self.ledger.host_budget,
            "host_bytes": self.ledger.host_used,
            "budget_violations": len(self.ledger.violations),
            "swaps": self.metrics.swap_count(),
            "queued": self.queued_total(),
            "models": [self._describe(slot, now) for slot in self.slots.values()],
        }

    def _describe(self, slot: ModelSlot, now: float) -> dict[str, Any]:
        return {
            "name": slot.name,
            "backend": slot.backend.kind,
            "state": "remote" if not slot.managed else str(slot.state),
            "footprint_bytes": slot.footprint if slot.managed else 0,
            "resident_bytes": self.ledger.device.get(slot.name, 0),
            "host_bytes": self.ledger.host.get(slot.name, 0),
            "in_flight": slot.in_flight,
            "queued": len(slot.live_waiters()),
            "last_used_s_ago": round(now - slot.last_used, 3) if slot.last_used else None,
            "oldest_wait_s": round(
                max((now - w.enqueued for w in slot.live_waiters()), default=0), 3
            ),
            "idle_ttl_s": self.scheduling.idle_ttl_s if slot.managed else None,
            "reload_s": round(slot.reload_s, 3),
            "pid": slot.backend.pid,
            "url": slot.backend.api_base if not slot.managed or slot.backend.pid else None,
            "failure": slot.failure,
        }

    def gauges(self) -> dict[str, list[tuple[dict[str, str], float]]]:
        """Gauges for ``GET /metrics``: queue depth, bytes, budget, states.

        ``budget_violations_total`` only grows (a counter); ``model_state`` has a series per
        model and state, 1 for the current state and 0 for the others, as vLLM reports its own.
        """
        managed = [slot for slot in self.slots.values() if slot.managed]
        return {
            "budget_bytes": [({}, float(self.ledger.device_budget))],
            "resident_bytes": [({}, float(self.ledger.device_used))],
            "host_budget_bytes": [({}, float(self.ledger.host_budget))],
            "host_bytes": [({}, float(self.ledger.host_used))],
            "queue_depth": [({}, float(self.queued_total()))],
            "budget_violations_total": [({}, float(len(self.ledger.violations)))],
            "model_queue_depth": [
                ({"model": s.name}, float(len(s.live_waiters()))) for s in self.slots.values()
            ],
            "model_in_flight": [
                ({"model": s.name}, float(s.in_flight)) for s in self.slots.values()
            ],
            "model_resident_bytes": [
                ({"model": s.name}, float(self.ledger.device.get(s.name, 0))) for s in managed
            ],
            "sleeping_remains_bytes": [
                (
                    {},
                    float(
                        sum(
                            self.ledger.device.get(s.name, 0)
                            for s in managed
                            if s.state is ModelState.SLEEPING
                        )
                    ),
                )
            ],
            "model_host_bytes": [
                ({"model": s.name}, float(self.ledger.host.get(s.name, 0))) for s in managed
            ],
            "model_state": [
                ({"model": s.name, "state": str(state)}, float(s.state is state))
                for s in managed
                for state in ModelState
            ],
        }
