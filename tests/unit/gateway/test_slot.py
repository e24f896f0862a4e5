"""One model's runtime record (:mod:`runtime.gateway.slot`): admissions, queue and state.

A :class:`ModelSlot` decides nothing; what it keeps must be right, since the scheduler and the
policies act on it: which requests are in flight (and when the model goes idle), which queued
ones still wait, how much room is left under ``max_in_flight``, what a policy sees, and when
its state last changed. An :class:`Admission` is released once, and revoked at most once, with
a reason its request's owner hears.
"""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from runtime.gateway import slot as slot_module
from runtime.gateway.backends import Launch, ProcessBackend
from runtime.gateway.policies import ModelState
from runtime.gateway.slot import Admission, ModelSlot, Waiter


def no_launch() -> Launch:
    raise AssertionError("a slot never starts its server")


def make_slot(**fields: object) -> ModelSlot:
    backend = ProcessBackend("m", no_launch, sleep_mode=fields.get("swap") == "sleep")
    return ModelSlot("m", backend, 600, 2.0, **fields)  # type: ignore[arg-type]


def waiter(enqueued: float) -> Waiter:
    future: asyncio.Future[Admission] = asyncio.get_running_loop().create_future()
    return Waiter(future, enqueued, deadline=enqueued + 60)


def test_in_flight_requests_keep_the_model_busy_until_the_last_is_released() -> None:
    slot = make_slot()
    idled: list[str] = []
    slot.on_idle = lambda s: idled.append(s.name)
    assert slot.idle.is_set() and slot.in_flight == 0
    first, second = slot.admit(), slot.admit()
    assert slot.in_flight == 2 and not slot.idle.is_set()
    assert first.id != second.id and first.id.startswith("m-")
    first.release()
    first.release()  # twice is fine: counted once
    assert slot.in_flight == 1 and not slot.idle.is_set() and idled == []
    second.release()
    assert slot.in_flight == 0 and slot.idle.is_set() and idled == ["m"]


def test_revoking_fails_every_request_in_flight_with_its_reason() -> None:
    slot = make_slot()
    heard: list[tuple[str, str]] = []
    running, done, late = slot.admit(), slot.admit(), slot.admit()
    running.on_revoke(lambda reason: heard.append(("running", reason)))
    done.on_revoke(lambda reason: heard.append(("done", reason)))
    done.release()  # finished before the revocation: nothing to fail
    assert slot.revoke_all("the server died") == 2
    assert slot.in_flight == 0 and slot.idle.is_set()
    assert heard == [("running", "the server died")]
    assert running.revoked == "the server died" and done.revoked is None
    running.revoke("again")  # at most once
    late.on_revoke(lambda reason: heard.append(("late", reason)))  # told at once
    assert heard == [("running", "the server died"), ("late", "the server died")]
    running.release()  # the owner's release after a revocation changes nothing
    assert slot.in_flight == 0


async def test_room_counts_requests_in_flight_and_those_still_queued() -> None:
    slot = make_slot(max_in_flight=3)
    slot.admit()
    gave_up, queued = waiter(10.0), waiter(11.0)
    slot.waiters.extend([gave_up, queued])
    assert not slot.has_room()  # 1 in flight + 2 queued
    gave_up.future.cancel()  # its client left
    assert slot.live_waiters() == [queued] and list(slot.waiters) == [queued]
    assert slot.has_room()
    queued.future.cancel()
    assert slot.live_waiters() == [] and slot.has_room()


async def test_a_request_ending_while_others_queue_makes_room_for_them() -> None:
    slot = make_slot(max_in_flight=1)
    asked: list[str] = []
    slot.on_room = lambda s: asked.append(s.name)
    running = slot.admit()
    alone = slot.admit()
    alone.release()  # nothing queued: nobody to tell
    assert asked == []
    slot.waiters.append(waiter(10.0))
    running.release()
    assert asked == ["m"]


async def test_a_policy_sees_the_queue_and_the_bytes_a_sleep_would_keep() -> None:
    slot = make_slot(
        swap="sleep", sleep_device_footprint=100, state=ModelState.READY, loaded_at=5.0
    )
    slot.admit()
    slot.waiters.extend([waiter(40.0), waiter(30.0)])
    view = slot.view(now=50.0)
    assert (view.name, view.state, view.footprint, view.reload_s) == ("m", "ready", 600, 2.0)
    assert (view.in_flight, view.queued, view.oldest_wait_s) == (1, 2, 20.0)
    assert view.loaded_at == 5.0 and view.last_used == slot.last_used > 0
    assert view.sleep_device_expected == 100  # declared: it never slept yet
    slot.sleep_device_measured = 250  # measured at its last sleep: that counts now
    assert slot.view(now=50.0).sleep_device_expected == 250
    assert make_slot(sleep_device_footprint=100).sleep_device_expected == 0  # swap: stop
    assert make_slot().view(now=50.0).oldest_wait_s == 0.0  # nothing queued


def test_a_change_of_state_notes_its_time(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = SimpleNamespace(now=100.0)
    monkeypatch.setattr(slot_module, "time", SimpleNamespace(monotonic=lambda: clock.now))
    slot = make_slot()
    assert slot.state is ModelState.STOPPED and slot.state_since == 100.0
    clock.now = 130.0
    slot.state = ModelState.STARTING
    assert slot.state_since == 130.0 and slot.busy_loading()
    clock.now = 150.0
    slot.state = ModelState.STARTING  # the same state again: not a change
    assert slot.state_since == 130.0
    slot.state = ModelState.READY
    assert slot.state_since == 150.0 and not slot.busy_loading() and slot.managed
