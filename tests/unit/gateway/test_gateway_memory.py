"""Memory truth: the budget from NVML or the config, measured footprints, the ledger."""

from __future__ import annotations

import os

import pytest
import structlog

from runtime.gateway.budget import (
    measure_footprint,
    plan_budget,
    process_group_pids,
    pss_bytes,
    resolve_budget,
)
from runtime.gateway.config import BudgetConfig, ConfigError, parse_config
from runtime.gateway.ledger import BudgetExceededError, LedgerSnapshot, MemoryLedger
from runtime.gateway.metrics import GatewayMetrics
from runtime.nvml import DeviceMemory, NVMLUnavailableError
from runtime.settings import Device
from tests.prometheus import sample

GiB = 2**30


def gpu(total: int = 80 * GiB, free: int = 70 * GiB) -> DeviceMemory:
    return DeviceMemory(0, "Fake H100", total, free, total - free)


def no_nvml(index: int) -> DeviceMemory:
    raise NVMLUnavailableError("NVML is not available: NVMLError_LibraryNotFound")


def test_cpu_budget_from_bytes_or_a_fraction_of_ram() -> None:
    def ram() -> int:
        return 32 * GiB

    fixed = resolve_budget(BudgetConfig(bytes=6 * GiB), Device.CPU, ram=ram)
    assert fixed.device_bytes == 6 * GiB and fixed.source == "budget.bytes"
    share = resolve_budget(BudgetConfig(ram_fraction=0.25), Device.CPU, ram=ram)
    assert share.device_bytes == 8 * GiB and "ram_fraction" in share.source


def test_gpu_budget_from_nvml_less_the_reserve() -> None:
    total = resolve_budget(BudgetConfig(reserve=GiB), Device.CUDA, probe=lambda i: gpu())
    assert total.device_bytes == 79 * GiB and "NVML total" in total.source
    free = resolve_budget(
        BudgetConfig(gpu_memory="free", reserve=GiB), Device.CUDA, probe=lambda i: gpu()
    )
    assert free.device_bytes == 69 * GiB
    capped = resolve_budget(BudgetConfig(bytes=10 * GiB), Device.CUDA, probe=lambda i: gpu())
    assert capped.device_bytes == 10 * GiB


def test_gpu_budget_degrades_to_the_configured_bytes_with_a_warning() -> None:
    with structlog.testing.capture_logs() as logs:
        budget = resolve_budget(BudgetConfig(bytes=12 * GiB), Device.CUDA, probe=no_nvml)
    assert budget.device_bytes == 12 * GiB and "NVML unavailable" in budget.source
    assert [e["event"] for e in logs if e["log_level"] == "warning"] == ["budget_degraded"]
    with pytest.raises(ConfigError, match="no budget.bytes"):
        resolve_budget(BudgetConfig(), Device.CUDA, probe=no_nvml)


def test_a_reserve_larger_than_the_gpu_is_an_error() -> None:
    with pytest.raises(ConfigError, match="reserve"):
        resolve_budget(BudgetConfig(reserve=90 * GiB), Device.CUDA, probe=lambda i: gpu())


def test_models_are_checked_against_the_resolved_budget() -> None:
    raw = {
        "budget": {"ram_fraction": 0.000001},
        "models": [{"name": "m", "backend": "vllm", "model": "m", "footprint": "1GiB"}],
    }
    config = parse_config(raw, origin="gw.yaml")
    with pytest.raises(ConfigError, match=r"gw\.yaml: models\[0\] \(m\)\.footprint"):
        plan_budget(config, "gw.yaml", Device.CPU)


def test_pss_of_this_process_is_measured() -> None:
    assert pss_bytes([os.getpid()]) > 10 * 2**20
    assert os.getpid() in process_group_pids(os.getpgid(0))
    assert measure_footprint(None, Device.CPU) is None


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


def test_metrics_render_as_prometheus_text() -> None:
    metrics = GatewayMetrics()
    metrics.swap("a", "load", 1.5)
    metrics.swap("a", "load", 0.5)
    metrics.swap("a", "stop", 0.25)
    metrics.request("a", "ok", 0.3)
    metrics.request("a", "deadline_exceeded", 30)
    metrics.admitted("a", "queued", 2.0)
    metrics.admitted("a", "rejected")
    metrics.first_token("a", 0.2)
    text = metrics.render({"budget_bytes": [({}, float(7 * GiB))], "x": [({"model": 'q"'}, 1.0)]})
    assert sample(text, "edgeswarm_gateway_swaps_total", model="a", kind="load") == 2
    assert sample(text, "edgeswarm_gateway_swap_duration_seconds_sum", model="a", kind="load") == 2
    assert sample(text, "edgeswarm_gateway_requests_total", model="a", outcome="ok") == 1
    assert sample(text, "edgeswarm_gateway_budget_bytes") == 7 * GiB
    assert sample(text, "edgeswarm_gateway_x", model='q"') == 1
    # distributions: request latency, queue wait, swap duration per kind, first token
    latency = "edgeswarm_gateway_request_duration_seconds"
    assert sample(text, f"{latency}_count", model="a", outcome="ok") == 1
    assert sample(text, f"{latency}_sum", model="a", outcome="ok") == 0.3
    assert sample(text, f"{latency}_sum", model="a", outcome="deadline_exceeded") == 30
    assert sample(text, "edgeswarm_gateway_queue_wait_seconds_sum", model="a") == 2.0
    wait = "edgeswarm_gateway_queue_wait_seconds_bucket"
    assert sample(text, wait, model="a", le="1.0") == 0
    assert sample(text, wait, model="a", le="2.5") == 1
    swap = "edgeswarm_gateway_swap_duration_seconds_count"
    assert sample(text, swap, model="a", kind="load") == 2
    assert sample(text, swap, model="a", kind="stop") == 1
    assert sample(text, "edgeswarm_gateway_time_to_first_token_seconds_count", model="a") == 1
    assert sample(text, "edgeswarm_gateway_admissions_total", model="a", path="rejected") == 1
    deadlines = sample(
        text, "edgeswarm_gateway_requests_total", model="a", outcome="deadline_exceeded"
    )
    assert deadlines == 1
    for gone in ("swap_seconds", "rejected", "deadlines"):  # duplicates of the series above
        assert f"edgeswarm_gateway_{gone}_total" not in text
    assert "_created" not in text  # clutter: a creation time beside every series
    # the gauges are the scrape's own: a later render without them has none
    assert sample(metrics.render({}), "edgeswarm_gateway_budget_bytes") is None
    assert metrics.swap_count() == 2
