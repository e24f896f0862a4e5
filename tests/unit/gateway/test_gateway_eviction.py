"""Eviction is a pure decision: memory-, idle- and reload-cost-aware, not FIFO."""

from __future__ import annotations

from runtime.gateway.eviction import (
    EXACT_SEARCH_LIMIT,
    ResidentModel,
    evict_fifo,
    evict_for,
    eviction_cost,
    sleeping_suffices,
)

GB = 10**9
NOW = 1000.0


def model(
    name: str,
    gb: float,
    *,
    last_used: float = 0.0,
    reload_s: float = 30.0,
    in_flight: int = 0,
    loaded_at: float = 0.0,
) -> ResidentModel:
    return ResidentModel(
        name,
        int(gb * GB),
        last_used=last_used,
        reload_s=reload_s,
        in_flight=in_flight,
        loaded_at=loaded_at,
    )


def test_nothing_to_evict_when_the_target_fits() -> None:
    resident = [model("a", 2, last_used=NOW)]
    assert evict_for(model("b", 2), resident, 4 * GB, NOW) == ()


def test_a_target_larger_than_the_budget_can_never_fit() -> None:
    assert evict_for(model("big", 5), [], 4 * GB, NOW) is None


def test_the_target_itself_is_not_a_victim() -> None:
    resident = [model("a", 3, last_used=NOW), model("b", 1, last_used=NOW)]
    assert evict_for(model("a", 3), resident, 4 * GB, NOW) == ()


def test_not_fifo_the_busy_first_loaded_model_stays() -> None:
    first = model("first", 2, loaded_at=1, last_used=NOW, in_flight=4)
    second = model("second", 2, loaded_at=2, last_used=NOW - 120)
    target = model("t", 2)
    assert evict_fifo(target, [first, second], 4 * GB, NOW) == ("first",)
    assert evict_for(target, [first, second], 4 * GB, NOW) == ("second",)


def test_the_longer_idle_model_goes_first() -> None:
    recent = model("recent", 2, last_used=NOW - 1)
    stale = model("stale", 2, last_used=NOW - 600)
    assert evict_for(model("t", 2), [recent, stale], 4 * GB, NOW) == ("stale",)


def test_reload_cost_matters_a_quick_reload_goes_before_a_slow_one() -> None:
    slow = model("slow", 2, last_used=NOW - 30, reload_s=90)
    quick = model("quick", 2, last_used=NOW - 30, reload_s=2)
    assert evict_for(model("t", 2), [slow, quick], 4 * GB, NOW) == ("quick",)


def test_memory_aware_frees_enough_bytes_with_the_cheapest_set() -> None:
    small1 = model("small1", 1, last_used=NOW - 10, reload_s=20)
    small2 = model("small2", 1, last_used=NOW - 10, reload_s=20)
    big = model("big", 3, last_used=NOW - 10, reload_s=25)
    # 5 GB resident, budget 6 GB, target 3 GB: 2 GB must go. Two smalls cost 40, big 25.
    assert evict_for(model("t", 3), [small1, small2, big], 6 * GB, NOW) == ("big",)
    # With a pricey big model the two small ones go together.
    big = model("big", 3, last_used=NOW, reload_s=200, in_flight=2)
    victims = evict_for(model("t", 3), [small1, small2, big], 6 * GB, NOW)
    assert victims is not None and set(victims) == {"small1", "small2"}


def test_a_single_small_model_is_not_enough() -> None:
    tiny = model("tiny", 0.5, last_used=NOW - 600, reload_s=1)
    mid = model("mid", 2, last_used=NOW - 5, reload_s=10)
    victims = evict_for(model("t", 3), [tiny, mid], 4 * GB, NOW)
    assert victims is not None
    freed = sum(m.held for m in (tiny, mid) if m.name in victims)
    assert 0.5 * GB + 3 * GB - freed <= 4 * GB and victims == ("mid",)


def test_cost_grows_with_work_that_would_be_cut_off() -> None:
    idle = model("m", 1, last_used=NOW - 10, reload_s=10)
    busy = model("m", 1, last_used=NOW - 10, reload_s=10, in_flight=3)
    assert eviction_cost(busy, NOW) > eviction_cost(idle, NOW)


def test_the_greedy_search_for_many_models_still_frees_enough() -> None:
    count = EXACT_SEARCH_LIMIT + 4
    resident = [model(f"m{i}", 1, last_used=NOW - i * 10, reload_s=5 + i) for i in range(count)]
    victims = evict_for(model("t", 3), resident, count * GB, NOW)
    assert victims is not None and len(victims) == 3
    used = sum(m.held for m in resident if m.name not in victims) + 3 * GB
    assert used <= count * GB


def test_victims_come_cheapest_first_and_results_are_deterministic() -> None:
    a = model("a", 1, last_used=NOW - 500, reload_s=10)
    b = model("b", 1, last_used=NOW - 5, reload_s=10)
    first = evict_for(model("t", 2), [a, b], 2 * GB, NOW)
    assert first == ("a", "b") == evict_for(model("t", 2), [b, a], 2 * GB, NOW)


def test_what_a_sleeping_victim_keeps_is_not_freed() -> None:
    """A sleep-mode model keeps its remains on the device (CUDA context, graph pools) when
    evicted: it frees only the rest, so the choice must cover the need with what is freed."""
    warm = ResidentModel("warm", 4 * GB, last_used=NOW, reload_s=1.0, held_after=3 * GB)
    cold = ResidentModel("cold", 2 * GB, last_used=NOW, reload_s=30.0)
    target = model("t", 3)
    # Counting warm's whole 4 GB, warm alone (cheap to bring back) would do; it frees 1 GB.
    assert evict_for(target, [warm, cold], 7 * GB, NOW) == ("cold",)
    assert evict_for(target, [warm, cold], 6 * GB, NOW) == ("warm", "cold")
    # Slept, warm keeps 3 GB: never enough. Stopped, it frees all 4: it is chosen, to stop.
    assert evict_for(target, [warm], 4 * GB, NOW) == ("warm",)
    assert evict_fifo(target, [warm], 4 * GB, NOW) == ("warm",)
    assert not sleeping_suffices(target, [warm], ("warm",), 4 * GB)
    assert sleeping_suffices(target, [warm, cold], ("warm", "cold"), 6 * GB)
    assert evict_for(target, [warm], 2 * GB, NOW) is None  # the target alone is too big
    many = [ResidentModel(f"m{i}", GB, held_after=GB // 2) for i in range(EXACT_SEARCH_LIMIT + 2)]
    greedy = evict_for(model("t", 2), many, (EXACT_SEARCH_LIMIT + 2) * GB, NOW)
    assert greedy is not None and len(greedy) == 4  # half a GB each for the 2 GB needed
