"""The memory ledger (:mod:`runtime.gateway.ledger`): the one place the budget is enforced.

A reservation that would break the budget is refused; a wake replaces a sleeping model's
remains by its footprint in one step; device and host RAM are separate pools; every change is
checked against the budget (a breach, only possible through a measured size, is recorded) and
shown to the observers.
"""

from __future__ import annotations

import pytest

from runtime.gateway.ledger import BudgetExceededError, LedgerSnapshot, MemoryLedger

GiB = 2**30


def test_the_ledger_refuses_what_would_break_the_budget() -> None:
    ledger = MemoryLedger(device_budget=4 * GiB, host_budget=8 * GiB)
    seen: list[LedgerSnapshot] = []
    ledger.observers.append(seen.append)
    ledger.reserve("a", 3 * GiB)
    with pytest.raises(BudgetExceededError, match="b needs"):
        ledger.reserve("b", 2 * GiB)
    with pytest.raises(BudgetExceededError, match="already holds"):
        ledger.reserve("a", GiB)
    assert ledger.release("a") == 3 * GiB and ledger.release("a") == 0
    ledger.reserve("b", 2 * GiB)
    ledger.reserve("a", 3 * GiB, host=True)
    assert ledger.device_used == 2 * GiB and ledger.host_used == 3 * GiB
    assert all(s.device_used <= s.device_budget for s in seen) and not ledger.violations


def test_a_measured_footprint_above_the_budget_is_recorded_as_a_violation() -> None:
    ledger = MemoryLedger(device_budget=4 * GiB, host_budget=0)
    ledger.reserve("a", 3 * GiB)
    ledger.resize("a", 5 * GiB)
    assert len(ledger.violations) == 1 and "resize a" in ledger.violations[0]


def test_a_grow_replaces_what_a_model_holds_or_refuses_keeping_it() -> None:
    """A sleeping model's remains stay counted when its wake does not fit (issue 41, finding
    3: releasing them first left the ledger short of what the device held)."""
    ledger = MemoryLedger(device_budget=10 * GiB, host_budget=0)
    ledger.reserve("asleep", 2 * GiB)  # its remains
    ledger.reserve("other", 6 * GiB)
    with pytest.raises(BudgetExceededError, match=r"asleep needs .*\(it holds 2\.00 GiB\)"):
        ledger.grow("asleep", 5 * GiB)  # 6 + 5 > 10
    assert ledger.device == {"asleep": 2 * GiB, "other": 6 * GiB}
    ledger.grow("asleep", 4 * GiB)  # 6 + 4: fits exactly
    assert ledger.device == {"asleep": 4 * GiB, "other": 6 * GiB}
    ledger.grow("new", 0)  # a model that held nothing grows from 0
    assert ledger.holds("new") and ledger.device_used == 10 * GiB
    assert not ledger.violations


def test_device_and_host_ram_are_separate_pools() -> None:
    ledger = MemoryLedger(device_budget=4 * GiB, host_budget=3 * GiB)
    ledger.reserve("a", 4 * GiB)
    assert not ledger.fits(1) and ledger.fits(3 * GiB, host=True)
    ledger.reserve("a", 3 * GiB, host=True)  # the same model in the other pool
    with pytest.raises(BudgetExceededError, match="of host RAM memory but only 0 B"):
        ledger.reserve("b", 1, host=True)
    assert ledger.release("a", host=True) == 3 * GiB
    assert ledger.device == {"a": 4 * GiB} and ledger.host == {}
    assert ledger.holds("a") and not ledger.holds("b")


def test_every_change_is_shown_to_the_observers() -> None:
    ledger = MemoryLedger(device_budget=4 * GiB, host_budget=2 * GiB)
    seen: list[LedgerSnapshot] = []
    ledger.observers.append(seen.append)
    ledger.reserve("a", GiB)
    ledger.reserve("a", GiB, host=True)
    ledger.grow("a", 2 * GiB)
    ledger.resize("a", 3 * GiB)
    ledger.resize("unknown", GiB)  # holds nothing: no change, nothing shown
    ledger.release("a")
    assert [s.change for s in seen] == [
        f"reserve a {GiB}",
        f"reserve a {GiB} host",
        f"grow a {GiB} -> {2 * GiB}",
        f"resize a {3 * GiB}",
        f"release a {3 * GiB}",
    ]
    assert [(s.device_used, s.host_used) for s in seen] == [
        (GiB, 0),
        (GiB, GiB),
        (2 * GiB, GiB),
        (3 * GiB, GiB),
        (0, GiB),
    ]
    assert ledger.snapshot("now") == LedgerSnapshot(0, 4 * GiB, GiB, 2 * GiB, "now")
