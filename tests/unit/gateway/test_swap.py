"""The swap scheduler (:mod:`runtime.gateway.swap`): admission, and what it tells of the device.

Admission alone, without the coordinator's task: a request to a ready model runs at once
beside the others, up to the model's ``max_in_flight``; anything else queues, within
``max_queue`` (then 429, with a ``Retry-After`` from the model's reload time); a model whose
start failed a moment ago is refused rather than started again; a closing gateway admits
nothing and fails what waits. Also the policy's room: bytes held by a failed server that is
not yet reaped are not the policy's to move, so it plans within the rest of the budget. The
coordinator's loads and swaps run in the state machine and the live tests.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from runtime.gateway.backends import Launch, ProcessBackend, RemoteBackend
from runtime.gateway.config import RemoteModelConfig, SchedulingConfig
from runtime.gateway.errors import (
    BadRequestError,
    ModelUnavailableError,
    QueueFullError,
    UnknownModelError,
)
from runtime.gateway.ledger import MemoryLedger
from runtime.gateway.policies import GroupedPolicy, ModelState
from runtime.gateway.slot import Admission, ModelSlot
from runtime.gateway.swap import SwapScheduler
from tests.prometheus import sample

MB = 10**6


def no_launch() -> Launch:
    raise AssertionError("admission never starts a server")


def managed(
    name: str,
    state: ModelState = ModelState.STOPPED,
    *,
    footprint: int = 600 * MB,
    reload_s: float = 2.0,
    **fields: Any,
) -> ModelSlot:
    """A managed model whose server is not running."""
    slot = ModelSlot(name, ProcessBackend(name, no_launch), footprint, reload_s, **fields)
    slot.state = state
    return slot


def remote(name: str, max_in_flight: int) -> ModelSlot:
    raw = {"name": name, "backend": "remote", "url": "http://far:8000/v1"}
    backend = RemoteBackend(RemoteModelConfig.model_validate(raw))
    return ModelSlot(name, backend, 0, 0.0, max_in_flight=max_in_flight)


@asynccontextmanager
async def scheduler(
    *slots: ModelSlot, budget: int = 1200 * MB, **scheduling: Any
) -> AsyncIterator[SwapScheduler]:
    """A scheduler over ``slots`` whose coordinator and watchdog are not started."""
    async with httpx.AsyncClient() as client:
        yield SwapScheduler(
            {slot.name: slot for slot in slots},
            MemoryLedger(budget, 0),
            GroupedPolicy(),
            SchedulingConfig(**scheduling),
            client,
        )


async def settle() -> None:
    """Let the tasks that are ready run."""
    for _ in range(5):
        await asyncio.sleep(0)


def admissions(swap: SwapScheduler, model: str, path: str) -> float | None:
    return sample(
        swap.metrics.render({}), "edgeswarm_gateway_admissions_total", model=model, path=path
    )


async def test_a_name_no_model_can_have_is_a_400_and_an_unknown_one_a_404() -> None:
    async with scheduler(managed("a"), managed("b")) as swap:
        assert swap.slot("a").name == "a"
        with pytest.raises(BadRequestError, match="'../x' is not a model name"):
            swap.slot("../x")
        with pytest.raises(UnknownModelError, match="model 'nope' is not served here; known: a, b"):
            await swap.admit("nope")


async def test_a_ready_model_admits_at_once_up_to_its_max_in_flight() -> None:
    async with scheduler(managed("a", ModelState.READY, max_in_flight=2)) as swap:
        first = await swap.admit("a")
        second = await swap.admit("a")
        assert swap.slots["a"].in_flight == 2 and admissions(swap, "a", "direct") == 2
        third = asyncio.create_task(swap.admit("a"))  # no room: it queues
        await settle()
        assert not third.done() and swap.queued_total() == 1
        third.cancel()
        with pytest.raises(asyncio.CancelledError):
            await third
        assert swap.queued_total() == 0  # a client that left gives up its place
        first.release()
        second.release()


async def test_a_remote_model_s_queue_is_served_as_its_requests_end() -> None:
    async with scheduler(remote("far", max_in_flight=1)) as swap:
        running = await swap.admit("far")
        waiting = asyncio.create_task(swap.admit("far"))
        await settle()
        assert not waiting.done() and swap.slots["far"].in_flight == 1
        running.release()  # room: the next one is admitted (no coordinator needed)
        admitted = await asyncio.wait_for(waiting, 60)
        assert isinstance(admitted, Admission) and swap.slots["far"].in_flight == 1
        assert admissions(swap, "far", "queued") == 1
        admitted.release()


@pytest.mark.parametrize(("reload_s", "retry_after_s"), [(200.0, 60), (7.4, 7), (0.2, 1)])
async def test_a_full_queue_is_a_429_that_says_when_to_retry(
    reload_s: float, retry_after_s: int
) -> None:
    async with scheduler(managed("a"), managed("b", reload_s=reload_s), max_queue=1) as swap:
        queued = asyncio.create_task(swap.admit("a"))  # a is stopped: its request waits
        await settle()
        with pytest.raises(QueueFullError, match=r"queue is full \(1 requests waiting\)") as err:
            await swap.admit("b")
        assert err.value.retry_after_s == retry_after_s  # b's reload time, 1 to 60 s
        assert admissions(swap, "b", "rejected") == 1
        queued.cancel()
        await asyncio.gather(queued, return_exceptions=True)


async def test_a_model_whose_start_just_failed_is_refused_not_started_again() -> None:
    failed_at = time.monotonic() - 0.5
    broken = managed("a", ModelState.FAILED, failure="exited with code 3")
    broken.start_failed_at = failed_at
    async with scheduler(broken, start_retry_s=10.0) as swap:
        with pytest.raises(ModelUnavailableError, match="exited with code 3") as err:
            await swap.admit("a")
        assert err.value.retry_after_s == 10  # 9.5 s left, rounded up
        assert swap.queued_total() == 0
        broken.start_failed_at = failed_at - 20  # the cool-down is over: it queues for a start
        retry = asyncio.create_task(swap.admit("a"))
        await settle()
        assert not retry.done() and swap.queued_total() == 1
        retry.cancel()
        await asyncio.gather(retry, return_exceptions=True)


async def test_a_closing_gateway_fails_what_waits_and_admits_nothing() -> None:
    async with scheduler(managed("a", ModelState.READY), managed("b")) as swap:
        running = await swap.admit("a")
        heard: list[str] = []
        running.on_revoke(heard.append)
        waiting = asyncio.create_task(swap.admit("b"))
        await settle()
        await swap.close()
        with pytest.raises(ModelUnavailableError, match="shutting down"):
            await waiting
        assert heard == ["the gateway is shutting down"]
        with pytest.raises(ModelUnavailableError, match="shutting down"):
            await swap.admit("a")
        assert {slot.state for slot in swap.slots.values()} == {ModelState.STOPPED}


async def test_a_request_whose_server_died_fails_the_model_and_its_other_requests() -> None:
    async with scheduler(managed("a", ModelState.READY), remote("far", 4)) as swap:
        other = await swap.admit("a")
        heard: list[str] = []
        other.on_revoke(heard.append)
        assert await swap.report_failure("a", "RemoteProtocolError") is True  # no process
        slot = swap.slots["a"]
        assert slot.state is ModelState.FAILED and slot.failure == "RemoteProtocolError"
        assert len(heard) == 1 and "the server of model a died" in heard[0]
        assert await swap.report_failure("far", "ConnectError") is False  # not ours to fail
        assert await swap.report_failure("nope", "ConnectError") is False


async def test_bytes_a_failed_server_still_holds_are_not_the_policy_s_to_move() -> None:
    """A (ready, 600 MB) and the target c (500 MB) fit in 1200 MB, but not beside the 300 MB a
    failed, not yet reaped server of b holds: the policy must see a 900 MB budget."""
    ready, failed = managed("a", ModelState.READY), managed("b", ModelState.FAILED)
    target = managed("c", footprint=500 * MB)
    async with scheduler(ready, failed, target) as swap:
        swap.ledger.reserve("a", 600 * MB)
        swap.ledger.reserve("b", 300 * MB)
        room = swap.room_for(target)
        assert room is not None and room.victims == ("a",)
        swap.ledger.release("b")  # reaped
        room = swap.room_for(target)
        assert room is not None and room.victims == ()
        assert swap.room_for(target, 1500 * MB) is None  # measured past the budget: never


async def test_host_ram_for_a_sleeper_is_made_by_stopping_the_least_used_sleeper() -> None:
    old, recent = managed("old", ModelState.SLEEPING), managed("recent", ModelState.SLEEPING)
    old.last_used, recent.last_used = time.monotonic() - 3000, time.monotonic() - 10
    async with scheduler(old, recent, managed("c")) as swap:
        swap.ledger.host_budget = 700 * MB
        swap.ledger.reserve("old", 300 * MB, host=True)
        swap.ledger.reserve("recent", 300 * MB, host=True)
        assert swap.host_room_for(swap.slots["c"], 300 * MB) == ("old",)
        assert swap.host_room_for(swap.slots["c"], 100 * MB) == ()  # it fits as it is


async def test_the_gauges_show_each_model_s_state_and_the_sleeping_remains() -> None:
    asleep = managed("a", ModelState.SLEEPING)
    async with scheduler(asleep, managed("b", ModelState.READY), remote("far", 4)) as swap:
        swap.ledger.reserve("a", 100 * MB)
        swap.ledger.reserve("b", 600 * MB)
        gauges = swap.gauges()
        states = {(labels["model"], labels["state"]): v for labels, v in gauges["model_state"]}
        assert states[("a", "sleeping")] == 1 and states[("a", "ready")] == 0
        assert states[("b", "ready")] == 1 and sum(states.values()) == 2
        assert not any(model == "far" for model, _ in states)  # remote: no state of ours
        assert gauges["sleeping_remains_bytes"] == [({}, float(100 * MB))]
        assert gauges["resident_bytes"] == [({}, float(700 * MB))]
        described = {m["name"]: m for m in swap.running()["models"]}
        assert described["far"]["state"] == "remote" and described["far"]["footprint_bytes"] == 0
        assert described["a"]["resident_bytes"] == 100 * MB


async def test_progress_of_a_ready_model_is_its_own_else_any_model_s() -> None:
    ready, waiting = managed("a", ModelState.READY), managed("b", ModelState.STOPPED)
    async with scheduler(ready, waiting) as swap:
        ready.progress.touch()
        ready.progress.touch()
        waiting.progress.touch()
        assert swap.progress_of("a")["work"] == 2
        assert swap.progress_of("b")["work"] == 3  # waiting for a swap: any model's counts
        waiting.state = ModelState.STARTING  # a load under way is progress every second
        before = int(time.monotonic())
        work = swap.progress_of("b")["work"]
        assert isinstance(work, int) and work >= 3 + before
        assert swap.silent_for() == 0.0
