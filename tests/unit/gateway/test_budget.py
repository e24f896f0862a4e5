"""The memory budget and measured footprints (:mod:`runtime.gateway.budget`).

The budget comes from the config on CPU and from NVML less a reserve on CUDA (the configured
bytes when NVML fails); models that could never fit are refused at load. A server's footprint
is measured as the PSS of its process group on CPU, and as NVML's figures on CUDA: per process,
or by the difference of the device's used bytes where NVML cannot tell the server's processes
apart. ``/proc`` and ``pynvml`` are faked where the figures must be known.
"""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pynvml
import pytest
import structlog

from runtime.gateway.budget import (
    DeviceMark,
    gpu_bytes,
    measure_footprint,
    plan_budget,
    process_group_pids,
    pss_bytes,
    resolve_budget,
    resolve_device,
)
from runtime.gateway.config import BudgetConfig, ConfigError, parse_config
from runtime.nvml import DeviceMemory, NVMLUnavailableError
from runtime.settings import Device

MB = 10**6
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


# -- process groups and PSS, read from a fake /proc -----------------------------------------


def fake_process(proc: Path, pid: int, *, comm: str, state: str, pgid: int, pss_kb: int) -> None:
    """``/proc/<pid>`` with its ``stat`` (state, parent, group) and ``smaps_rollup``."""
    folder = proc / str(pid)
    folder.mkdir(parents=True)
    (folder / "stat").write_text(f"{pid} ({comm}) {state} 1 {pgid} {pgid} 0 -1 4194304\n")
    (folder / "smaps_rollup").write_text(
        f"00400000-7ffd rw-p 00000000 00:00 0 [rollup]\nRss: {2 * pss_kb} kB\nPss: {pss_kb} kB\n"
    )


def test_the_process_group_is_every_live_member_whatever_its_name(tmp_path: Path) -> None:
    fake_process(tmp_path, 100, comm="vllm", state="S", pgid=100, pss_kb=1000)
    fake_process(tmp_path, 101, comm="a) R 1 100 (odd", state="R", pgid=100, pss_kb=10)
    fake_process(tmp_path, 102, comm="worker", state="Z", pgid=100, pss_kb=0)  # a zombie
    fake_process(tmp_path, 200, comm="other", state="S", pgid=200, pss_kb=5)
    (tmp_path / "self").mkdir()  # not a pid
    (tmp_path / "103").mkdir()  # gone while it was read: no stat
    assert sorted(process_group_pids(100, tmp_path)) == [100, 101]
    assert process_group_pids(200, tmp_path) == [200]
    assert process_group_pids(300, tmp_path) == []


def test_pss_sums_the_members_in_bytes_and_skips_those_gone(tmp_path: Path) -> None:
    fake_process(tmp_path, 100, comm="vllm", state="S", pgid=100, pss_kb=1000)
    fake_process(tmp_path, 101, comm="worker", state="S", pgid=100, pss_kb=24)
    assert pss_bytes([100, 101], tmp_path) == 1024 * 1024  # Pss only, not Rss
    assert pss_bytes([100, 999], tmp_path) == 1000 * 1024
    assert pss_bytes([], tmp_path) == 0


# -- models checked against the resolved budget --------------------------------------------


def test_a_sleeping_model_s_host_ram_is_checked_against_the_host_budget() -> None:
    def config(level: int) -> Any:
        model = {
            "name": "s",
            "backend": "command",
            "command": ["false"],
            "footprint": 400 * MB,
            "swap": "sleep",
            "sleep_level": level,
            "sleep_footprint": 300 * MB,
        }
        raw = {"budget": {"bytes": 1000 * MB, "host_bytes": 200 * MB}, "models": [model]}
        return parse_config(raw, origin="gw.yaml", device=Device.CUDA)

    with pytest.raises(ConfigError, match=r"gw\.yaml: models\[0\] \(s\)\.sleep_footprint"):
        plan_budget(config(1), "gw.yaml", Device.CPU)
    budget = plan_budget(config(2), "gw.yaml", Device.CPU)  # level 2 keeps nothing in RAM
    assert (budget.device_bytes, budget.host_bytes) == (1000 * MB, 200 * MB)


def test_a_configured_device_is_the_one_the_gateway_owns() -> None:
    model = {"name": "m", "backend": "command", "command": ["false"], "footprint": "1GiB"}
    for device in (Device.CPU, Device.CUDA):
        raw = {"device": str(device), "budget": {"bytes": "4GiB"}, "models": [model]}
        assert resolve_device(parse_config(raw, origin="gw.yaml")) is device


# -- GPU footprints through a fake pynvml --------------------------------------------------


class FakeNVML:
    """pynvml listing ``running`` (pid -> figure, None: no figure) and ``used`` device bytes."""

    def __init__(self, running: dict[int, int | None], used: int, *, failing: bool = False) -> None:
        self.running = running
        self.used = used
        self.failing = failing
        self.shut = 0

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        def init() -> None:
            if self.failing:
                raise pynvml.NVMLError(pynvml.NVML_ERROR_LIBRARY_NOT_FOUND)

        def shutdown() -> None:
            self.shut += 1

        def processes(handle: Any) -> list[SimpleNamespace]:
            return [SimpleNamespace(pid=p, usedGpuMemory=n) for p, n in self.running.items()]

        monkeypatch.setattr(pynvml, "nvmlInit", init)
        monkeypatch.setattr(pynvml, "nvmlShutdown", shutdown)
        monkeypatch.setattr(pynvml, "nvmlDeviceGetHandleByIndex", lambda index: f"gpu{index}")
        monkeypatch.setattr(pynvml, "nvmlDeviceGetComputeRunningProcesses", processes)
        monkeypatch.setattr(
            pynvml, "nvmlDeviceGetMemoryInfo", lambda handle: SimpleNamespace(used=self.used)
        )


def test_nvml_s_own_figures_for_the_server_s_pids_are_summed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    nvml = FakeNVML({100: 300 * MB, 101: 50 * MB, 200: 999 * MB}, used=5000 * MB)
    nvml.install(monkeypatch)
    mark = DeviceMark(used=0, held=0)  # not needed: the figures are the server's own
    assert gpu_bytes([100, 101], since=mark) == 350 * MB
    assert gpu_bytes([100]) == 300 * MB
    assert nvml.shut == 2  # NVML is shut down after each look


def test_where_nvml_lists_none_of_the_server_s_pids_the_difference_is_measured(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A PID namespace (NVML lists host PIDs), or no per-process figure: what the server held
    at the mark plus what the device's used bytes grew by since, never below 0."""
    FakeNVML({7100: 400 * MB}, used=1500 * MB).install(monkeypatch)
    with structlog.testing.capture_logs() as logs:
        assert gpu_bytes([100], since=DeviceMark(used=1000 * MB, held=100 * MB)) == 600 * MB
        assert gpu_bytes([100]) is None  # no mark: nothing to compare with
        assert gpu_bytes([100], since=DeviceMark(used=3000 * MB, held=100 * MB)) == 0
    assert [e["event"] for e in logs] == [
        "footprint_by_difference",
        "footprint_unmeasured",
        "footprint_by_difference",
    ]
    FakeNVML({100: None}, used=1200 * MB).install(monkeypatch)  # listed, without a figure
    assert gpu_bytes([100], since=DeviceMark(used=1000 * MB, held=0)) == 200 * MB


def test_nvml_failing_measures_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    FakeNVML({100: 300 * MB}, used=0, failing=True).install(monkeypatch)
    with structlog.testing.capture_logs() as logs:
        assert gpu_bytes([100], since=DeviceMark(used=0, held=0)) is None
    assert [e["event"] for e in logs] == ["footprint_unmeasured"]
