"""One model's runtime record: its backend, state, admitted requests and queue.

A :class:`ModelSlot` is plain bookkeeping owned by the swap scheduler; it decides nothing. It is
the one record of a model's state: a policy sees it through :meth:`ModelSlot.view` (a frozen
:class:`~runtime.gateway.policies.ModelView`), eviction through
:meth:`~runtime.gateway.policies.ModelView.as_resident`.

Bytes, one word each: *device* or *host* says where; ``footprint`` is what a model holds on
the device once loaded (declared, raised to the measured figure on CUDA); ``sleep_*`` is what
it keeps while it sleeps; *declared* comes from the config, *measured* from NVML, *held* is
accounted now, *expected* is what it would keep if it slept now (measured last time, else
declared). The config's keys keep their names: ``sleep_footprint`` is
:attr:`ModelSlot.sleep_host_footprint`.
An :class:`Admission` is one admitted request (or a lease held by a graph node): it counts as in
flight until released, and the scheduler can revoke it (drain timeout, backend death), which
cancels the work attached to it with a reason the client sees.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from runtime.gateway.backends import Backend
from runtime.gateway.policies import ModelState, ModelView
from runtime.progress import ProgressClock

_ids = itertools.count(1)


class Admission:
    """An admitted request: in flight on ``slot`` until :meth:`release`."""

    def __init__(self, slot: ModelSlot) -> None:
        self.slot = slot
        self.id = f"{slot.name}-{next(_ids)}"
        self.admitted_at = time.monotonic()
        self.revoked: str | None = None
        self._on_revoke: Callable[[str], None] | None = None
        self._released = False

    def on_revoke(self, callback: Callable[[str], None]) -> None:
        """Call ``callback(reason)`` if the scheduler revokes this admission."""
        self._on_revoke = callback
        if self.revoked is not None:
            callback(self.revoked)

    def revoke(self, reason: str) -> None:
        """Fail this request with ``reason`` (the slot already forgot it)."""
        if self.revoked is None and not self._released:
            self.revoked = reason
            if self._on_revoke is not None:
                self._on_revoke(reason)

    def release(self) -> None:
        """Done: no longer in flight. Safe to call twice."""
        if not self._released:
            self._released = True
            self.slot.finish(self)


def _now() -> float:
    """This module's clock (a test's virtual clock replaces the module's ``time``)."""
    return time.monotonic()


@dataclass
class Waiter:
    """A queued request waiting for its model to be admitted."""

    future: asyncio.Future[Admission]
    enqueued: float
    deadline: float


@dataclass
class ModelSlot:
    """A managed or remote model and everything the scheduler tracks about it."""

    name: str
    backend: Backend
    footprint: int
    reload_s: float
    swap: str = "stop"
    sleep_level: int = 1
    sleep_host_footprint: int = 0
    """Declared host bytes it takes while it sleeps at level 1 (the weights, in RAM)."""
    sleep_device_footprint: int = 0
    """Declared device bytes a sleeping server keeps (used when they cannot be measured)."""
    sleep_device_held: int = 0
    """Device bytes held for the server while it sleeps now (0 unless it sleeps)."""
    sleep_device_measured: int | None = None
    """Device bytes it kept the last time it slept, measured (None before its first sleep)."""
    request_timeout_s: float | None = None
    """A hard cap on one request (None: none; liveness decides, ``request_idle_s``)."""
    request_idle_s: float = 120.0
    """A request is cut only when neither it nor this model made progress this long."""
    max_in_flight: int = 64
    """Requests admitted at once at most; more wait in the queue (:meth:`has_room`)."""
    progress: ProgressClock = field(default_factory=lambda: ProgressClock(clock=_now))
    """When this model last made progress: a byte relayed, work on its server, a load."""
    state: ModelState = ModelState.STOPPED
    state_since: float = field(default_factory=_now)
    """Monotonic time of the last change of ``state`` (noted by :meth:`__setattr__`)."""
    admissions: set[Admission] = field(default_factory=set)
    waiters: deque[Waiter] = field(default_factory=deque)
    last_used: float = 0.0
    loaded_at: float = 0.0
    failure: str | None = None
    start_failed_at: float | None = None
    """Monotonic time of the last failed start (None after a good one)."""
    idle: asyncio.Event = field(default_factory=asyncio.Event)
    on_idle: Callable[[ModelSlot], None] | None = None
    on_room: Callable[[ModelSlot], None] | None = None
    """Called when a request finishes while others queue (one of them may be admitted)."""

    def __post_init__(self) -> None:
        self.idle.set()

    def __setattr__(self, name: str, value: object) -> None:
        # Every module that changes a state assigns it (residency, swap): the time of the
        # change is noted here, the one place they all pass through (for the status page).
        if name == "state" and value is not self.__dict__.get("state", value):
            super().__setattr__("state_since", _now())
        super().__setattr__(name, value)

    def busy_loading(self) -> bool:
        """Whether a load or wake of this model is under way (progress, bounded elsewhere)."""
        return self.state is ModelState.STARTING

    @property
    def in_flight(self) -> int:
        """Requests admitted and not yet finished."""
        return len(self.admissions)

    @property
    def managed(self) -> bool:
        """Whether the gateway starts and swaps this model (False: remote)."""
        return self.backend.managed

    def has_room(self) -> bool:
        """Whether a new request may be admitted beside those in flight and queued."""
        return self.in_flight + len(self.live_waiters()) < self.max_in_flight

    def admit(self) -> Admission:
        """Admit one request now (the caller decided it may run)."""
        admission = Admission(self)
        self.admissions.add(admission)
        self.idle.clear()
        self.last_used = time.monotonic()
        return admission

    def finish(self, admission: Admission) -> None:
        """Forget a finished admission; signal when the model goes idle."""
        if admission in self.admissions:
            self.admissions.discard(admission)
            self.last_used = time.monotonic()
            if not self.admissions:
                self.idle.set()
                if self.on_idle is not None:
                    self.on_idle(self)
            if self.on_room is not None and self.waiters:
                self.on_room(self)

    def revoke_all(self, reason: str) -> int:
        """Fail every in-flight request with ``reason``; returns how many there were."""
        revoked = list(self.admissions)
        self.admissions.clear()
        self.idle.set()
        for admission in revoked:
            admission.revoke(reason)
        return len(revoked)

    def live_waiters(self) -> list[Waiter]:
        """Queued requests still waiting (drops those that gave up)."""
        while self.waiters and self.waiters[0].future.done():
            self.waiters.popleft()
        return [w for w in self.waiters if not w.future.done()]

    def view(self, now: float) -> ModelView:
        """This model as a scheduling policy sees it."""
        waiting = self.live_waiters()
        oldest = min((w.enqueued for w in waiting), default=now)
        return ModelView(
            name=self.name,
            state=self.state,
            footprint=self.footprint,
            in_flight=self.in_flight,
            queued=len(waiting),
            oldest_wait_s=now - oldest,
            last_used=self.last_used,
            loaded_at=self.loaded_at,
            reload_s=self.reload_s,
            sleep_device_held=self.sleep_device_held,
            sleep_device_expected=self.sleep_device_expected,
        )

    @property
    def sleep_device_expected(self) -> int:
        """Device bytes it would keep if slept now: as last time, else as declared."""
        if self.swap != "sleep":
            return 0
        seen = self.sleep_device_measured
        return self.sleep_device_footprint if seen is None else seen
