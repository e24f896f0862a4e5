"""Eviction: which resident models to unload to make room. Pure decisions, no side effects.

:func:`evict_for` picks the set of victims whose eviction costs least, where the cost of one
victim is the reload work it will likely cause: its measured reload seconds, weighted by how
likely it is to be wanted again soon (recently used models are likely, long-idle ones are not)
and by the requests it would cut off (in flight or queued). Among sets that free enough bytes
the cheapest wins, then the one with fewer victims. It is not FIFO and not plain LRU: a
long-idle model that reloads in a second goes before a busy one that takes a minute.

:func:`evict_fifo` is the naive baseline (unload in load order) kept for comparison.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

# How quickly the chance of reuse fades with idle time: a model idle this long counts half.
REUSE_HORIZON_S = 60.0
# Up to this many resident models every subset is tried; above, a greedy choice is made.
EXACT_SEARCH_LIMIT = 12


@dataclass(frozen=True)
class ResidentModel:
    """A model as eviction sees it: the bytes it holds, its use and its cost to bring back.

    A projection of the gateway's record of the model (:class:`runtime.gateway.slot.ModelSlot`,
    through :meth:`runtime.gateway.policies.ModelView.as_resident`), in whatever bytes the
    caller budgets: device bytes for loading a model, host bytes for sleeping one.
    """

    name: str
    held: int
    """Bytes it holds now (for the model to make room for: what it will hold once loaded)."""
    last_used: float = 0.0
    """Monotonic time of the last admission or completion."""
    reload_s: float = 30.0
    """Seconds a reload takes (measured on the last load, else the configured estimate)."""
    in_flight: int = 0
    queued: int = 0
    loaded_at: float = 0.0
    """Monotonic time the model became resident (used only by the FIFO baseline)."""
    held_after: int = 0
    """Bytes it still holds once evicted: a sleep-mode server's remains on the device."""

    @property
    def frees(self) -> int:
        """Bytes its eviction frees."""
        return self.held - self.held_after


def eviction_cost(model: ResidentModel, now: float) -> float:
    """Expected reload seconds caused by evicting ``model`` now."""
    busy = model.in_flight + model.queued
    idle_s = 0.0 if busy else max(0.0, now - model.last_used)
    reuse = REUSE_HORIZON_S / (REUSE_HORIZON_S + idle_s)
    return model.reload_s * reuse * (1 + busy)


def evict_for(
    target: ResidentModel, resident: Sequence[ResidentModel], budget: int, now: float
) -> tuple[str, ...] | None:
    """The victims to unload so ``target`` fits in ``budget``; None if it never can.

    ``resident`` is every model holding budget bytes now (``target`` itself is ignored there).
    An empty tuple means it fits already.
    """
    others = [model for model in resident if model.name != target.name]
    need = sum(model.held for model in others) + target.held - budget
    if need <= 0:
        return ()
    if target.held > budget:
        return None
    cover = _cheapest_cover if len(others) <= EXACT_SEARCH_LIMIT else _greedy_cover
    return _slept_or_stopped(cover, others, need, now)


Cover = Callable[[Sequence[ResidentModel], int, float], tuple[str, ...] | None]


def _slept_or_stopped(
    cover: Cover, others: Sequence[ResidentModel], need: int, now: float
) -> tuple[str, ...] | None:
    """Victims that free ``need`` bytes slept; else stopped (see :func:`sleeping_suffices`).

    A sleep-mode victim slept keeps its remains; stopped, it frees them too. Counted only as
    slept, a target that fits once one of them stops was refused for as long as they stayed
    ready (found by the gateway's state machine:
    ``test_a_model_that_fits_once_a_sleep_mode_victim_stops_is_loaded``).
    """
    found = cover(others, need, now)
    if found is None and any(model.held_after for model in others):
        found = cover([replace(model, held_after=0) for model in others], need, now)
    return found


def sleeping_suffices(
    target: ResidentModel, resident: Sequence[ResidentModel], victims: Sequence[str], budget: int
) -> bool:
    """Whether ``target`` fits once ``victims`` are slept (keeping their remains).

    False: they must be stopped instead, as :func:`evict_for` chose them for.
    """
    chosen = set(victims)
    kept = sum(
        model.held_after if model.name in chosen else model.held
        for model in resident
        if model.name != target.name
    )
    return kept + target.held <= budget


def _rank(models: Sequence[ResidentModel], now: float) -> tuple[float, int, float, str]:
    cost = sum(eviction_cost(model, now) for model in models)
    idle = sum(now - model.last_used for model in models)
    names = ",".join(sorted(model.name for model in models))
    return (round(cost, 9), len(models), -idle, names)


def _cheapest_cover(
    models: Sequence[ResidentModel], need: int, now: float
) -> tuple[str, ...] | None:
    best: tuple[ResidentModel, ...] | None = None
    for size in range(1, len(models) + 1):
        for combo in itertools.combinations(models, size):
            if sum(model.frees for model in combo) < need:
                continue
            if best is None or _rank(combo, now) < _rank(best, now):
                best = combo
    return None if best is None else _names(best, now)


def _greedy_cover(models: Sequence[ResidentModel], need: int, now: float) -> tuple[str, ...] | None:
    useful = [model for model in models if model.frees > 0]
    ordered = sorted(useful, key=lambda m: (eviction_cost(m, now) / m.frees, m.name))
    chosen: list[ResidentModel] = []
    freed = 0
    for model in ordered:
        if freed >= need:
            break
        chosen.append(model)
        freed += model.frees
    if freed < need:
        return None
    # Drop victims that turned out unnecessary, most expensive first.
    for model in sorted(chosen, key=lambda m: -eviction_cost(m, now)):
        if freed - model.frees >= need:
            chosen.remove(model)
            freed -= model.frees
    return _names(chosen, now)


def _names(models: Sequence[ResidentModel], now: float) -> tuple[str, ...]:
    """Victim names, cheapest first (the order they are unloaded in)."""
    return tuple(m.name for m in sorted(models, key=lambda m: (eviction_cost(m, now), m.name)))


def evict_fifo(
    target: ResidentModel, resident: Sequence[ResidentModel], budget: int, now: float
) -> tuple[str, ...] | None:
    """The naive baseline: unload in the order models were loaded until ``target`` fits."""
    del now  # same signature as evict_for; FIFO ignores time
    if target.held > budget:
        return None
    others = sorted(
        (model for model in resident if model.name != target.name),
        key=lambda m: (m.loaded_at, m.name),
    )
    used = sum(model.held for model in others) + target.held
    for stopped in (False, True):  # slept first; stopped if that leaves too little
        left, victims = used, []
        for model in others:
            if left <= budget:
                break
            victims.append(model.name)
            left -= model.held if stopped else model.frees
        if left <= budget:
            return tuple(victims)
    return None
