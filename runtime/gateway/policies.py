"""Scheduling: what the device does next. Pure decisions over a snapshot, no side effects.

A policy sees a :class:`DeviceView` (every managed model's state, queue and use) and answers
with a :class:`Plan`: which queued requests to admit, which model to load next (at most one:
swaps are exclusive), which idle models to unload, and when to look again. The stateful owner
that carries plans out is :class:`runtime.gateway.swap.SwapScheduler`.

The policies (``scheduling.policy`` in the config):

- :class:`GroupedPolicy`, the gateway's: requests to a ready model are admitted at once and run
  concurrently (continuous batching). Queued requests wait grouped by model; the device swaps
  to a waiting model as soon as the models it would evict have been idle for ``linger_s``, or
  once its oldest request has waited ``max_wait_s`` and the victims have been resident that
  long (then the overdue model that waited longest goes first), so a busy model serves its
  queue before the device swaps away and no model starves.
- :class:`FifoMutexPolicy`, the naive baseline: one request at a time on the whole device, in
  arrival order, with FIFO eviction. It exists to be measured against.
- :class:`FifoPolicy`, between the two: the device serves the model of the oldest queued
  request; requests to a ready model run concurrently.

A new policy is a class that satisfies :class:`SchedulingPolicy` (``name``,
``admits_directly``, ``plan``, ``victims``, ``host_victims``), registered in
:func:`policy_for`: runtime/gateway/DESIGN.md, "How to add a policy".

Every eviction is the policy's choice: the scheduler's swaps, a load measured larger than
declared and host RAM for a model going to sleep all ask it, through :func:`make_room` (its
victims, and whether they are stopped rather than slept) and ``host_victims``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from runtime.gateway.eviction import ResidentModel, evict_fifo, evict_for, sleeping_suffices


class ModelState(StrEnum):
    """Life cycle of a managed model's backend."""

    STOPPED = "stopped"
    STARTING = "starting"
    READY = "ready"
    SLEEPING = "sleeping"
    STOPPING = "stopping"
    FAILED = "failed"


# A model in one of these states with queued requests is a candidate to load.
LOADABLE = frozenset({ModelState.STOPPED, ModelState.SLEEPING, ModelState.FAILED})


@dataclass(frozen=True)
class ModelView:
    """One managed model as a policy sees it."""

    name: str
    state: ModelState
    footprint: int
    """Device bytes it holds once loaded (the slot's :attr:`~ModelSlot.footprint`)."""
    in_flight: int = 0
    queued: int = 0
    oldest_wait_s: float = 0.0
    """How long the oldest queued request has waited (0 when none is queued)."""
    last_used: float = 0.0
    loaded_at: float = 0.0
    reload_s: float = 30.0
    sleep_device_held: int = 0
    """Device bytes held for it while it sleeps now (CUDA context, graph pools; 0 awake)."""
    sleep_device_expected: int = 0
    """Device bytes it would keep if it were slept now (0 unless it swaps by sleeping)."""

    @property
    def device_held(self) -> int:
        """Device bytes the model holds now: its footprint when ready, its remains asleep."""
        if self.state is ModelState.READY:
            return self.footprint
        return self.sleep_device_held if self.state is ModelState.SLEEPING else 0

    def as_resident(self, *, loaded: bool = False) -> ResidentModel:
        """This model as eviction sees it: holding what it holds now, or (``loaded``) loaded.

        Evicting a sleeping model stops it, freeing what it kept on the device.
        """
        return ResidentModel(
            self.name,
            self.footprint if loaded else self.device_held,
            last_used=self.last_used,
            reload_s=self.reload_s,
            in_flight=self.in_flight,
            queued=self.queued,
            loaded_at=self.loaded_at,
            held_after=self.sleep_device_expected if self.state is ModelState.READY else 0,
        )


@dataclass(frozen=True)
class DeviceView:
    """Every managed model on the device, and the budget."""

    models: tuple[ModelView, ...]
    budget: int
    max_wait_s: float
    idle_ttl_s: float | None = None
    sleep_ttl_s: float | None = None
    """A sleeping model unused this long is stopped (its host RAM freed)."""
    linger_s: float = 2.0
    """A model used this recently counts as busy (a lease is followed by its request)."""

    def resident(self) -> list[ModelView]:
        """Models holding budget bytes: the ready ones, and sleeping ones that keep some."""
        return [m for m in self.models if m.device_held > 0]

    def get(self, name: str) -> ModelView:
        """The model called ``name``."""
        return next(m for m in self.models if m.name == name)


@dataclass(frozen=True)
class Plan:
    """What to do now; the owner carries it out and asks again."""

    admit: Mapping[str, int] = field(default_factory=dict)
    """Queued requests to admit per ready model (a count; ``ALL`` for the whole queue)."""
    load: str | None = None
    unload: tuple[str, ...] = ()
    recheck_s: float | None = None
    """Ask again after this many seconds even if nothing happens (a deadline or TTL ends)."""


ALL = 1 << 30


class SchedulingPolicy(Protocol):
    """A pluggable scheduling policy (the gateway's, or a baseline to compare against)."""

    name: str

    def admits_directly(self, model: ModelView) -> bool:
        """Whether a new request to ``model`` may skip the queue."""
        ...

    def plan(self, view: DeviceView, now: float) -> Plan:
        """What to do next."""
        ...

    def victims(self, target: ModelView, view: DeviceView, now: float) -> tuple[str, ...] | None:
        """The models to unload so ``target`` fits; None if it cannot."""
        ...

    def host_victims(
        self, target: ResidentModel, sleeping: Sequence[ResidentModel], budget: int, now: float
    ) -> tuple[str, ...] | None:
        """The sleeping models to stop so ``target`` (going to sleep) fits in the host budget."""
        ...


@dataclass(frozen=True)
class Room:
    """What to evict so a model fits: the policy's victims, and how."""

    victims: tuple[str, ...]
    stop: bool
    """Stop them rather than sleep them: asleep, their remains would leave too little."""


def make_room(
    policy: SchedulingPolicy, target: ModelView, view: DeviceView, now: float
) -> Room | None:
    """``policy``'s victims for ``target`` in ``view``, and whether sleeping them suffices.

    The one place that decides how a swap makes room; None when ``target`` cannot fit.
    """
    victims = policy.victims(target, view, now)
    if victims is None:
        return None
    if not victims:
        return Room((), stop=False)
    resident = [m.as_resident() for m in view.resident()]
    fits_asleep = sleeping_suffices(target.as_resident(loaded=True), resident, victims, view.budget)
    return Room(victims, stop=not fits_asleep)


def cheapest_sleeping(
    target: ResidentModel, sleeping: Sequence[ResidentModel], budget: int, now: float
) -> tuple[str, ...] | None:
    """Host room the cost-aware way (:func:`evict_for`): every shipped policy's ``host_victims``.

    Sleeping models only cost a reload from host RAM; load order tells nothing about that.
    """
    return evict_for(target, sleeping, budget, now)


def expired(view: DeviceView, now: float) -> tuple[tuple[str, ...], float | None]:
    """Idle models past their TTL, and the seconds until the next one expires.

    A ready model expires ``idle_ttl_s`` after its last use (it is then slept or stopped); a
    sleeping one ``sleep_ttl_s`` after its last use (it is then stopped, freeing host RAM).
    """
    due: list[str] = []
    next_s: float | None = None
    for model in view.models:
        ttl = {ModelState.READY: view.idle_ttl_s, ModelState.SLEEPING: view.sleep_ttl_s}.get(
            model.state
        )
        if ttl is None or model.in_flight or model.queued:
            continue
        left = ttl - (now - model.last_used)
        if left <= 0:
            due.append(model.name)
        else:
            next_s = left if next_s is None else min(next_s, left)
    return tuple(due), next_s


def pick_target(waiting: Sequence[ModelView], max_wait_s: float) -> ModelView | None:
    """The model to load next: the longest-overdue one, else the longest queue."""
    if not waiting:
        return None
    overdue = [m for m in waiting if m.oldest_wait_s >= max_wait_s]
    if overdue:
        return max(overdue, key=lambda m: (m.oldest_wait_s, m.queued, m.name))
    return max(waiting, key=lambda m: (m.queued, m.oldest_wait_s, m.name))


def _min_optional(*values: float | None) -> float | None:
    present = [value for value in values if value is not None]
    return min(present) if present else None


def swap_delay(
    target: ModelView, victims: Sequence[ModelView], view: DeviceView, now: float
) -> float:
    """Seconds before the device may swap ``victims`` out for ``target``; 0 means now.

    Idle victims go at once. A victim that is busy (requests in flight or queued) or was used
    within ``linger_s`` keeps the device until it has been idle for ``linger_s``, or until
    ``target`` has waited :func:`hold_s` *and* the victim has been resident that long: a
    loaded model serves its group before the device swaps away, and no waiting model starves.
    """
    working = [v for v in victims if v.in_flight or v.queued]
    lingering = [v for v in victims if now - v.last_used < view.linger_s]
    if not working and not lingering:
        return 0.0
    settle = math.inf
    if not working:
        settle = max(view.linger_s - (now - v.last_used) for v in lingering)
    held = [*working, *lingering]
    hold = hold_s(target, view)
    overdue = max(
        hold - target.oldest_wait_s,
        max(hold - (now - v.loaded_at) for v in held),
    )
    return max(0.0, min(settle, overdue))


def hold_s(target: ModelView, view: DeviceView) -> float:
    """How long a busy resident group may keep ``target`` waiting: what the swap would cost.

    Waiting is worth it while it costs less than the swap it saves (the rent-or-buy rule:
    wait as long as switching costs, then switch), the switch being ``target``'s load as last
    measured (its estimate before). Cheap swaps go soon; a vLLM start of tens of seconds
    holds the group up to ``max_wait_s``, the bound that no model waits past. Never under
    ``linger_s``, so a model just loaded serves the requests that its lease announced.
    Measured on part 2 of the bench (fake backends, 2.6 s swaps, 60 requests): 13.0 s and
    p50 3.4 s instead of 14.9 s and 6.7 s with ``max_wait_s`` (10 s) as the only bound.
    """
    return min(view.max_wait_s, max(view.linger_s, target.reload_s))


class GroupedPolicy:
    """Concurrent admission to ready models; queues grouped by model; bounded waits."""

    name = "grouped"

    def admits_directly(self, model: ModelView) -> bool:
        """Ready models take new requests at once, without any lock."""
        return model.state is ModelState.READY

    def victims(self, target: ModelView, view: DeviceView, now: float) -> tuple[str, ...] | None:
        """Cost-aware eviction (:func:`evict_for`)."""
        resident = [m.as_resident() for m in view.resident()]
        return evict_for(target.as_resident(loaded=True), resident, view.budget, now)

    host_victims = staticmethod(cheapest_sleeping)

    def plan(self, view: DeviceView, now: float) -> Plan:
        """Admit every ready queue; load the next model once its victims may go."""
        admit = {m.name: ALL for m in view.models if m.queued and m.state is ModelState.READY}
        unload, ttl_next = expired(view, now)
        waiting = [m for m in view.models if m.queued and m.state in LOADABLE]
        target = pick_target(waiting, view.max_wait_s)
        if target is None:
            return Plan(admit=admit, unload=unload, recheck_s=ttl_next)
        victims = self.victims(target, view, now)
        if victims is None:  # cannot fit: the load attempt fails its requests clearly
            return Plan(admit=admit, load=target.name, unload=unload)
        delay = swap_delay(target, [view.get(v) for v in victims], view, now)
        if delay <= 0:
            return Plan(admit=admit, load=target.name, unload=unload)
        # Look again when the victims may go, or when another model becomes overdue.
        due = [
            view.max_wait_s - m.oldest_wait_s for m in waiting if m.oldest_wait_s < view.max_wait_s
        ]
        recheck = max(0.01, min([delay, *due]))
        return Plan(admit=admit, unload=unload, recheck_s=_min_optional(recheck, ttl_next))


class _ArrivalOrder:
    """What the FIFO policies share: every request queues, and models go in load order."""

    def admits_directly(self, model: ModelView) -> bool:
        """Never: a new request must not pass one that waits (for the mutex, another model)."""
        del model
        return False

    def victims(self, target: ModelView, view: DeviceView, now: float) -> tuple[str, ...] | None:
        """Unload in load order."""
        resident = [m.as_resident() for m in view.resident()]
        return evict_fifo(target.as_resident(loaded=True), resident, view.budget, now)

    host_victims = staticmethod(cheapest_sleeping)


class FifoMutexPolicy(_ArrivalOrder):
    """The naive baseline: a global mutex, one request at a time, FIFO order and eviction."""

    name = "fifo-mutex"

    def plan(self, view: DeviceView, now: float) -> Plan:
        """Admit the oldest request once nothing runs, loading its model first if needed."""
        unload, ttl_next = expired(view, now)
        if any(m.in_flight for m in view.models):
            return Plan(unload=unload, recheck_s=ttl_next)
        waiting = [m for m in view.models if m.queued]
        if not waiting:
            return Plan(unload=unload, recheck_s=ttl_next)
        head = max(waiting, key=lambda m: (m.oldest_wait_s, m.name))
        if head.state is ModelState.READY:
            return Plan(admit={head.name: 1}, unload=unload)
        if head.state in LOADABLE:
            return Plan(load=head.name, unload=unload)
        return Plan(unload=unload, recheck_s=ttl_next)


class FifoPolicy(_ArrivalOrder):
    """Arrival order without grouping: ready models batch, the device swaps in arrival order.

    The model of the oldest waiting request is the one to serve next, however few requests
    it has and however many the resident model still has queued (what a swapping proxy such
    as llama-swap does). Its own queue is admitted whole, so the mutex policy's loss of
    concurrency is not mixed into a comparison with :class:`GroupedPolicy`.
    """

    name = "fifo"

    def plan(self, view: DeviceView, now: float) -> Plan:
        """Serve the oldest request's model; load it, as soon as its victims drained, if needed.

        Ready models that the load leaves in place take their queues too (a budget of several
        models); the victims take nothing more and drain while the load waits for them.
        """
        unload, ttl_next = expired(view, now)
        waiting = [m for m in view.models if m.queued]
        if not waiting:
            return Plan(unload=unload, recheck_s=ttl_next)
        head = max(waiting, key=lambda m: (m.oldest_wait_s, m.name))
        ready = [m.name for m in waiting if m.state is ModelState.READY]
        if head.state not in LOADABLE:  # ready, or already on its way in or out
            return Plan(admit=dict.fromkeys(ready, ALL), unload=unload, recheck_s=ttl_next)
        victims = set(self.victims(head, view, now) or ())
        admit = dict.fromkeys((name for name in ready if name not in victims), ALL)
        return Plan(admit=admit, load=head.name, unload=unload)


def policy_for(name: str) -> SchedulingPolicy:
    """The policy called ``name`` in the config."""
    policies: dict[str, SchedulingPolicy] = {
        GroupedPolicy.name: GroupedPolicy(),
        FifoMutexPolicy.name: FifoMutexPolicy(),
        FifoPolicy.name: FifoPolicy(),
    }
    return policies[name]
