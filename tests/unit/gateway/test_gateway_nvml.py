"""NVML failing, at start or in the middle of a run: the configured budget holds, with warnings.

NVML is faked at the ``pynvml`` functions the gateway calls, so the test means the same on a
machine without an NVIDIA driver and on one with a GPU.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pynvml
import pytest
import structlog
import yaml

from runtime.gateway.backends import ProcessBackend
from runtime.gateway.service import GatewayService, prepare
from tests.support.gateway import MB, fake_model, live_gateway, write_config
from tests.support.processes import pid_alive

_RESULTS: dict[str, Any] = {
    "nvmlInit": None,
    "nvmlShutdown": None,
    "nvmlDeviceGetCount": 1,
    "nvmlDeviceGetHandleByIndex": "gpu0",
    "nvmlDeviceGetName": "Fake GPU",
    "nvmlDeviceGetMemoryInfo": SimpleNamespace(total=1200 * MB, free=1200 * MB, used=0),
    "nvmlDeviceGetComputeRunningProcesses": [],  # the fakes hold no GPU memory
}


@dataclass
class FakeNVML:
    """pynvml's calls answering for one idle GPU, or failing as a lost GPU does."""

    failing: bool = False

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        for name, result in _RESULTS.items():
            monkeypatch.setattr(pynvml, name, self._call(name, result))

    def _call(self, name: str, result: Any) -> Any:
        def call(*args: Any) -> Any:
            if self.failing and name != "nvmlShutdown":
                raise pynvml.NVMLError(pynvml.NVML_ERROR_GPU_IS_LOST)
            return result

        return call


@pytest.mark.timeout(90)
@pytest.mark.parametrize("fails", ["at-start", "mid-run"])
async def test_nvml_failing_leaves_the_configured_budget_and_swaps_within_it(
    tmp_path: Path, tag: str, monkeypatch: pytest.MonkeyPatch, fails: str
) -> None:
    nvml = FakeNVML(failing=fails == "at-start")
    nvml.install(monkeypatch)
    models = [fake_model(n, tag, load_time=0.1, latency=0.05) for n in "abc"]
    config = write_config(tmp_path, models, 1000 * MB, device="cuda", max_wait_s=0.5)
    rng = random.Random(7)
    with structlog.testing.capture_logs() as logs:
        async with live_gateway(config, tag) as live:
            assert (await live.chat("a")).status_code == 200
            nvml.failing = True  # from now on every NVML call fails (mid-run: after a load)
            replies = await asyncio.gather(*(live.chat(rng.choice("abc")) for _ in range(30)))
            running = await live.running()
    assert [r.status_code for r in replies] == [200] * 30
    assert running["budget_bytes"] == 1000 * MB and running["budget_violations"] == 0
    assert not live.violations and live.worst_ledger <= live.budget
    assert 0 < live.worst_real <= live.budget
    assert live.service.metrics.swap_count() >= 3
    warnings = [e["event"] for e in logs if e["log_level"] == "warning"]
    assert ("budget_degraded" in warnings) == (fails == "at-start")
    unmeasured = [e for e in logs if e["event"] == "footprint_unmeasured"]
    loads_after = live.service.metrics.swap_count() - (0 if fails == "at-start" else 1)
    assert len(unmeasured) == loads_after and "GPU is lost" in unmeasured[-1]["reason"]


@dataclass
class SimulatedGPU:
    """pynvml answering for one GPU whose memory the fake servers write to ``directory``
    (their ``--sim-gpu-dir``, a file per PID). ``pid_offset`` shifts the PIDs NVML lists, as
    in a container with its own PID namespace (NVML lists host PIDs); ``figures`` False makes
    NVML list no per-process figure (``usedGpuMemory`` None, as some drivers and MIG do)."""

    directory: Path
    total: int
    pid_offset: int = 0
    figures: bool = True

    def held(self) -> dict[int, int]:
        """PID -> bytes of every live process that holds memory on this GPU."""
        return {
            int(entry.name): int(entry.read_text())
            for entry in self.directory.iterdir()
            if entry.name.isdigit() and pid_alive(int(entry.name))  # gone: the driver freed it
        }

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        def memory(*_: Any) -> SimpleNamespace:
            used = sum(self.held().values())
            return SimpleNamespace(total=self.total, free=self.total - used, used=used)

        def processes(*_: Any) -> list[SimpleNamespace]:
            shift, figures = self.pid_offset, self.figures
            return [
                SimpleNamespace(pid=pid + shift, usedGpuMemory=n if figures else None)
                for pid, n in self.held().items()
            ]

        calls = {
            "nvmlDeviceGetMemoryInfo": memory,
            "nvmlDeviceGetComputeRunningProcesses": processes,
        }
        for name, result in _RESULTS.items():
            monkeypatch.setattr(pynvml, name, calls.get(name, lambda *_, answer=result: answer))


@pytest.mark.timeout(90)
@pytest.mark.parametrize("nvml", ["own-pids", "host-pids", "no-figures"])
async def test_footprints_are_measured_on_the_gpu_also_where_nvml_cannot_tell_processes_apart(
    tmp_path: Path, tag: str, monkeypatch: pytest.MonkeyPatch, nvml: str
) -> None:
    """``a`` holds 500 MB, declared 300; ``b`` holds 550 MB awake (declared 600) and its 100 MB
    context asleep. Where NVML lists the servers' own PIDs with figures, the gateway reads
    them; where it lists host PIDs (a container) or no figures, it measures each load and sleep
    by difference of the device's used bytes: the same 500 MB for ``a``, and for sleeping ``b``
    its 600 MB reservation less the 450 MB freed, 150 MB, on the safe side of the real 100."""
    gpu = SimulatedGPU(tmp_path / "gpu", 2000 * MB, 4_000_000 if nvml == "host-pids" else 0)
    gpu.figures = nvml != "no-figures"
    gpu.directory.mkdir()
    gpu.install(monkeypatch)
    sim: dict[str, Any] = {"sim_gpu_dir": gpu.directory, "load_time": 0.1}
    models = [
        fake_model("a", tag, footprint=300 * MB, gpu_bytes=500 * MB, **sim),
        fake_model(
            "b",
            tag,
            swap="sleep",
            sleep_footprint=450 * MB,
            gpu_bytes=450 * MB,
            gpu_context_bytes=100 * MB,
            **sim,
        ),
    ]
    config = write_config(tmp_path, models, 1000 * MB, device="cuda")
    remains = 100 * MB if nvml == "own-pids" else 150 * MB
    with structlog.testing.capture_logs() as logs:
        async with live_gateway(config, tag) as live:
            assert (await live.chat("a")).status_code == 200
            assert (await live.model_info("a"))["footprint_bytes"] == 500 * MB  # measured
            assert (await live.chat("b")).status_code == 200  # a stopped: 500 + 600 > 1000
            assert live.service.ledger.device == {"b": 600 * MB}  # 550 measured: declared kept
            assert (await live.chat("a")).status_code == 200  # b sleeps to make room
            assert (await live.model_info("b"))["state"] == "sleeping"
            assert live.service.ledger.device == {"a": 500 * MB, "b": remains}
            assert sum(gpu.held().values()) == 600 * MB  # what the device really holds
            assert (await live.chat("b")).status_code == 200  # woken: a stopped
            assert live.service.ledger.device == {"b": 600 * MB}
    assert live.service.ledger.violations == [] and not live.violations
    events = [e["event"] for e in logs]
    assert "footprint_unmeasured" not in events
    by_difference = [e for e in logs if e["event"] == "footprint_by_difference"]
    assert len(by_difference) == (0 if nvml == "own-pids" else 4)  # three loads, one sleep
    if nvml == "host-pids":
        assert "lists none of the server's PIDs" in by_difference[0]["reason"]


@pytest.mark.parametrize("nvml", ["working", "failing"])
async def test_each_vllm_server_on_a_gpu_takes_only_its_footprints_share_of_the_gpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, nvml: str
) -> None:
    """vLLM takes 0.9 of the whole GPU unless told otherwise, so a second server could not
    start: on CUDA the gateway gives each its footprint's share of the GPU NVML measured
    (here 1200 MB), unless the config's extra_args say; NVML failing, it warns instead."""
    FakeNVML(failing=nvml == "failing").install(monkeypatch)
    weights = tmp_path / "weights"
    weights.mkdir()
    (weights / "config.json").write_text("{}")
    mine = "--gpu-memory-utilization=0.2"
    models = [
        {"name": "a", "backend": "vllm", "model": str(weights), "footprint": 300 * MB},
        {"name": "b", "backend": "vllm", "model": str(weights), "footprint": 400 * MB},
        {"name": "c", "backend": "vllm", "model": str(weights), "footprint": 300 * MB},
    ]
    models[2]["extra_args"] = [mine]
    config = tmp_path / "gateway.yaml"
    budget = {"bytes": 1000 * MB}
    data = {"device": "cuda", "state_dir": str(tmp_path), "budget": budget, "models": models}
    config.write_text(yaml.safe_dump(data))
    with structlog.testing.capture_logs() as logs:
        service = GatewayService(prepare(config))
    commands = {}
    for name, slot in service.slots.items():
        assert isinstance(slot.backend, ProcessBackend)
        commands[name] = slot.backend._launch().process.command  # built, never started
    await service.client.aclose()
    flag = "--gpu-memory-utilization"
    if nvml == "working":
        assert commands["a"][commands["a"].index(flag) + 1] == "0.2500"  # 300 of 1200 MB
        assert commands["b"][commands["b"].index(flag) + 1] == "0.3333"  # rounded down
    else:
        unknown = [e["model"] for e in logs if e["event"] == "gpu_share_unknown"]
        assert unknown == ["a", "b"] and flag not in commands["a"] + commands["b"]
    assert commands["c"][-1] == mine and flag not in commands["c"]
