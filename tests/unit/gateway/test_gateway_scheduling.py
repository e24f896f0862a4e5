"""Scheduling decisions are pure: grouped by model, bounded waits, a FIFO baseline."""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

import pytest

from runtime.gateway.policies import (
    ALL,
    DeviceView,
    FifoMutexPolicy,
    FifoPolicy,
    GroupedPolicy,
    ModelState,
    ModelView,
    SchedulingPolicy,
    expired,
    pick_target,
    policy_for,
)

GB = 10**9
READY, STOPPED = ModelState.READY, ModelState.STOPPED


def view(*models: ModelView, budget: int = 2 * GB, max_wait_s: float = 5.0) -> DeviceView:
    return DeviceView(models=models, budget=budget, max_wait_s=max_wait_s, idle_ttl_s=None)


def mv(
    name: str,
    state: ModelState = STOPPED,
    *,
    in_flight: int = 0,
    queued: int = 0,
    oldest_wait_s: float = 0.0,
    last_used: float = 0.0,
    loaded_at: float = 0.0,
) -> ModelView:
    return ModelView(
        name=name,
        state=state,
        footprint=2 * GB,
        in_flight=in_flight,
        queued=queued,
        oldest_wait_s=oldest_wait_s,
        last_used=last_used,
        loaded_at=loaded_at,
    )


def test_ready_models_admit_directly_others_queue() -> None:
    grouped = GroupedPolicy()
    assert grouped.admits_directly(mv("a", READY))
    for state in (STOPPED, ModelState.STARTING, ModelState.STOPPING, ModelState.FAILED):
        assert not grouped.admits_directly(mv("a", state))
    assert not FifoMutexPolicy().admits_directly(mv("a", READY))


def test_a_ready_model_gets_its_whole_queue() -> None:
    plan = GroupedPolicy().plan(view(mv("a", READY, queued=7)), 0.0)
    assert plan.admit == {"a": ALL} and plan.load is None


def test_the_longest_queue_loads_first_on_an_empty_device() -> None:
    plan = GroupedPolicy().plan(view(mv("a", queued=2), mv("b", queued=5)), 0.0)
    assert plan.load == "b"


def test_a_busy_resident_model_finishes_its_group_before_the_device_swaps() -> None:
    busy = mv("a", READY, in_flight=3, last_used=10.0)
    waiting = mv("b", queued=1, oldest_wait_s=2.0)
    plan = GroupedPolicy().plan(view(busy, waiting, max_wait_s=5.0), 10.0)
    assert plan.load is None
    assert plan.recheck_s == pytest.approx(3.0)  # looks again when b becomes due


def test_an_overdue_model_swaps_in_even_if_the_resident_one_is_busy() -> None:
    busy = mv("a", READY, in_flight=3, queued=0, last_used=10.0, loaded_at=1.0)
    due = mv("b", queued=1, oldest_wait_s=5.0)
    assert GroupedPolicy().plan(view(busy, due, max_wait_s=5.0), 10.0).load == "b"


def test_an_idle_resident_model_is_swapped_out_at_once() -> None:
    idle = mv("a", READY, last_used=5.0)
    waiting = mv("b", queued=1, oldest_wait_s=0.1)
    assert GroupedPolicy().plan(view(idle, waiting), 10.0).load == "b"


def test_a_model_just_used_lingers_for_the_request_that_follows_its_lease() -> None:
    leased = mv("a", READY, last_used=9.5, loaded_at=9.0)
    waiting = mv("b", queued=1, oldest_wait_s=0.1)
    plan = GroupedPolicy().plan(view(leased, waiting), 10.0)
    assert plan.load is None and plan.recheck_s == pytest.approx(1.5)


def test_a_freshly_loaded_model_serves_its_group_before_an_overdue_one_swaps_in() -> None:
    # b waited through a's long load and is overdue, but a just became ready and is busy.
    fresh = mv("a", READY, in_flight=2, last_used=100.0, loaded_at=99.0)
    overdue = mv("b", queued=3, oldest_wait_s=60.0)
    plan = GroupedPolicy().plan(view(fresh, overdue, max_wait_s=5.0), 100.0)
    assert plan.load is None and plan.recheck_s == pytest.approx(4.0)
    assert GroupedPolicy().plan(view(fresh, overdue, max_wait_s=5.0), 104.0).load == "b"


def test_among_overdue_models_the_longest_waiting_goes_first() -> None:
    long_queue = mv("a", queued=9, oldest_wait_s=6.0)
    oldest = mv("b", queued=1, oldest_wait_s=8.0)
    assert pick_target([long_queue, oldest], max_wait_s=5.0) == oldest
    assert pick_target([], max_wait_s=5.0) is None


def test_idle_models_past_the_ttl_are_unloaded() -> None:
    models = (
        mv("old", READY, last_used=0.0),
        mv("fresh", READY, last_used=90.0),
        mv("busy", READY, last_used=0.0, in_flight=1),
    )
    ttl_view = DeviceView(models=models, budget=9 * GB, max_wait_s=5, idle_ttl_s=60)
    due, next_s = expired(ttl_view, 100.0)
    assert due == ("old",) and next_s == pytest.approx(50.0)
    assert GroupedPolicy().plan(ttl_view, 100.0).unload == ("old",)
    assert expired(replace(ttl_view, idle_ttl_s=None), 100.0) == ((), None)


def test_sleeping_models_past_the_sleep_ttl_are_stopped() -> None:
    models = (
        mv("dozing", ModelState.SLEEPING, last_used=0.0),
        mv("napping", ModelState.SLEEPING, last_used=80.0),
        mv("wanted", ModelState.SLEEPING, last_used=0.0, queued=1),
        mv("ready", READY, last_used=0.0),
    )
    ttl_view = DeviceView(models=models, budget=9 * GB, max_wait_s=5, sleep_ttl_s=50)
    due, next_s = expired(ttl_view, 100.0)
    assert due == ("dozing",) and next_s == pytest.approx(30.0)  # idle_ttl_s is None here
    both = replace(ttl_view, idle_ttl_s=90)
    due, next_s = expired(both, 100.0)
    assert due == ("dozing", "ready") and next_s == pytest.approx(30.0)
    assert expired(replace(ttl_view, sleep_ttl_s=None), 100.0) == ((), None)


def test_fifo_mutex_runs_one_request_at_a_time_in_arrival_order() -> None:
    fifo = FifoMutexPolicy()
    running = view(mv("a", READY, in_flight=1), mv("b", queued=3, oldest_wait_s=9.0))
    assert fifo.plan(running, 0.0).admit == {} and fifo.plan(running, 0.0).load is None
    free = view(mv("a", READY, queued=1, oldest_wait_s=1.0), mv("b", queued=1, oldest_wait_s=2.0))
    assert fifo.plan(free, 0.0).load == "b"
    head_ready = view(mv("a", READY, queued=2, oldest_wait_s=3.0), mv("b", queued=1))
    assert fifo.plan(head_ready, 0.0).admit == {"a": 1}


def test_fifo_swaps_to_the_oldest_request_s_model_but_batches_a_ready_one() -> None:
    fifo = FifoPolicy()
    assert not fifo.admits_directly(mv("a", READY))
    # The resident model's queue waits behind an older request for another model.
    behind = view(
        mv("a", READY, in_flight=2, queued=5, oldest_wait_s=1.0),
        mv("b", queued=1, oldest_wait_s=2.0),
    )
    plan = fifo.plan(behind, 0.0)
    assert plan.load == "b" and plan.admit == {}
    # The head's model is ready: its whole queue goes at once, beside what runs.
    head_ready = view(mv("a", READY, in_flight=2, queued=4, oldest_wait_s=3.0), mv("b", queued=1))
    plan = fifo.plan(head_ready, 0.0)
    assert plan.admit == {"a": ALL} and plan.load is None
    # A budget of two models: the ready one that the load leaves in place keeps serving.
    roomy = view(
        mv("a", READY, queued=2, oldest_wait_s=1.0),
        mv("b", queued=1, oldest_wait_s=2.0),
        budget=4 * GB,
    )
    plan = fifo.plan(roomy, 0.0)
    assert plan.load == "b" and plan.admit == {"a": ALL}
    assert fifo.plan(view(mv("a", READY)), 0.0) == type(plan)()


def test_policies_by_name() -> None:
    assert isinstance(policy_for("grouped"), GroupedPolicy)
    assert isinstance(policy_for("fifo"), FifoPolicy)
    assert isinstance(policy_for("fifo-mutex"), FifoMutexPolicy)


# -- starvation bound: a small discrete-time simulation driven by the pure policy -----------


@dataclass
class SimModel:
    name: str
    state: ModelState = STOPPED
    queue: list[float] = field(default_factory=list)
    running: list[float] = field(default_factory=list)
    last_used: float = 0.0
    loaded_at: float = 0.0

    def view(self, now: float) -> ModelView:
        return ModelView(
            name=self.name,
            state=self.state,
            footprint=2 * GB,
            in_flight=len(self.running),
            queued=len(self.queue),
            oldest_wait_s=now - min(self.queue) if self.queue else 0.0,
            last_used=self.last_used,
            loaded_at=self.loaded_at,
            reload_s=LOAD_S,
        )


LOAD_S, SERVICE_S, DT = 1.0, 0.5, 0.01


def wait_bound(models: int, max_wait_s: float) -> float:
    """Each model ahead holds the device for its group (max wait), then drains and swaps."""
    return (models - 1) * (max_wait_s + SERVICE_S + LOAD_S) + LOAD_S + 0.1


class Simulation:
    """Arrivals (time, model) run through a policy; loads and service take fixed times."""

    def __init__(self, policy: SchedulingPolicy, max_wait_s: float) -> None:
        self.policy = policy
        self.max_wait_s = max_wait_s
        self.models: dict[str, SimModel] = {}
        self.waits: dict[str, float] = {}
        self.now = 0.0
        self.busy_until = 0.0
        self.swaps = 0
        self.loading: SimModel | None = None

    def admit(self, m: SimModel, arrived: float) -> None:
        self.waits[m.name] = max(self.waits[m.name], self.now - arrived)
        m.running.append(self.now + SERVICE_S)
        m.last_used = self.now

    def arrive(self, arrived: float, name: str) -> None:
        m = self.models[name]
        if self.policy.admits_directly(m.view(self.now)):
            self.admit(m, arrived)
        else:
            m.queue.append(arrived)

    def decide(self) -> None:
        now = self.now
        dv = DeviceView(tuple(m.view(now) for m in self.models.values()), 2 * GB, self.max_wait_s)
        plan = self.policy.plan(dv, now)
        for name, count in plan.admit.items():
            m = self.models[name]
            for _ in range(min(count, len(m.queue))):
                self.admit(m, m.queue.pop(0))
        if plan.load is None:
            return
        target = self.models[plan.load]
        for victim in self.policy.victims(target.view(now), dv, now) or ():
            v = self.models[victim]
            self.now = max([self.now, *v.running])  # drain
            v.state, v.running = STOPPED, []
        target.state, target.loaded_at = ModelState.STARTING, self.now + LOAD_S
        self.busy_until, self.loading = self.now + LOAD_S, target
        self.swaps += 1

    def run(self, arrivals: list[tuple[float, str]]) -> tuple[dict[str, float], int]:
        """The longest wait per model, and the number of swaps."""
        self.models = {name: SimModel(name) for _, name in arrivals}
        self.waits = dict.fromkeys(self.models, 0.0)
        pending = sorted(arrivals)
        while pending or any(m.queue or m.running for m in self.models.values()):
            for m in self.models.values():
                m.running = [end for end in m.running if end > self.now]
            while pending and pending[0][0] <= self.now:
                self.arrive(*pending.pop(0))
            if self.loading is not None and self.now >= self.busy_until:
                self.loading.state, self.loading = READY, None
            if self.now >= self.busy_until:
                self.decide()
            self.now = round(self.now + DT, 6)
            assert self.now < 600, "the simulation did not finish: a model starved"
        return self.waits, self.swaps


def simulate(
    policy: SchedulingPolicy, arrivals: list[tuple[float, str]], max_wait_s: float
) -> tuple[dict[str, float], int]:
    return Simulation(policy, max_wait_s).run(arrivals)


def test_a_hot_model_cannot_starve_the_others() -> None:
    max_wait_s = 3.0
    hot = [(i * 0.05, "hot") for i in range(400)]  # a request every 50 ms for 20 s
    arrivals = [*hot, (1.0, "cold1"), (1.5, "cold2")]
    waits, _ = simulate(GroupedPolicy(), arrivals, max_wait_s)
    bound = wait_bound(3, max_wait_s)
    assert waits["cold1"] <= bound and waits["cold2"] <= bound
    assert waits["hot"] <= bound


def test_grouping_swaps_far_less_than_the_fifo_baseline() -> None:
    rng = random.Random(7)
    arrivals = [(rng.uniform(0, 10), rng.choice("abc")) for _ in range(120)]
    grouped_waits, grouped_swaps = simulate(GroupedPolicy(), arrivals, 3.0)
    _, fifo_swaps = simulate(FifoMutexPolicy(), arrivals, 3.0)
    assert grouped_swaps * 3 < fifo_swaps
    assert max(grouped_waits.values()) <= wait_bound(3, 3.0)
    # Arrival order alone, concurrency kept: queues that built up during a load go together,
    # so fewer swaps than the mutex, but more than grouping.
    _, order_swaps = simulate(FifoPolicy(), arrivals, 3.0)
    assert grouped_swaps < order_swaps < fifo_swaps


def test_a_sleeping_model_that_keeps_device_bytes_is_resident_and_can_be_stopped() -> None:
    """Sleeping, a model still holds its remains: they count against the budget, and
    stopping it is how a load gets them back."""
    asleep = replace(mv("asleep", ModelState.SLEEPING), sleep_device_held=GB // 2)
    gone = mv("gone", ModelState.SLEEPING)  # keeps nothing: not resident
    ready = replace(mv("ready", READY, last_used=0.0), sleep_device_expected=GB)
    target = replace(mv("t", queued=1, oldest_wait_s=1.0), footprint=GB)
    devices = view(asleep, gone, ready, target, budget=3 * GB)
    assert [m.name for m in devices.resident()] == ["asleep", "ready"]
    assert asleep.device_held == GB // 2 and gone.device_held == 0 and ready.device_held == 2 * GB
    # 0.5 + 2 + 1 > 3: sleeping "ready" frees 1 of its 2 GB, enough; or stop "asleep"
    victims = GroupedPolicy().victims(target, devices, 100.0)
    assert victims is not None and len(victims) == 1
    tight = view(asleep, ready, target, budget=int(2.2 * GB))
    both = GroupedPolicy().victims(target, tight, 100.0)
    assert both is not None and set(both) == {"asleep", "ready"}  # 1 + 0.5 GB freed


def test_a_busy_group_holds_the_device_only_as_long_as_the_swap_would_cost() -> None:
    busy = mv("a", READY, in_flight=3, last_used=50.0, loaded_at=1.0)
    cheap = replace(mv("b", queued=1, oldest_wait_s=2.9), reload_s=3.0)
    plan = GroupedPolicy().plan(view(busy, cheap, max_wait_s=10.0), 50.0)
    assert plan.load is None and plan.recheck_s == pytest.approx(0.1)
    cheap_due = replace(cheap, oldest_wait_s=3.0)
    assert GroupedPolicy().plan(view(busy, cheap_due, max_wait_s=10.0), 50.0).load == "b"
    # A start of tens of seconds: the group keeps the device up to max_wait_s, no longer.
    dear = replace(cheap, oldest_wait_s=9.0, reload_s=40.0)
    assert GroupedPolicy().plan(view(busy, dear, max_wait_s=10.0), 50.0).load is None
    dear_due = replace(dear, oldest_wait_s=10.0)
    assert GroupedPolicy().plan(view(busy, dear_due, max_wait_s=10.0), 50.0).load == "b"
    # Never under linger_s: a lease announces the request that follows it.
    instant = replace(cheap, oldest_wait_s=1.0, reload_s=0.1)
    assert GroupedPolicy().plan(view(busy, instant, max_wait_s=10.0), 50.0).load is None
