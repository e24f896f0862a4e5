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

from tests.unit.gateway.test_gateway_live import MB, fake_model, live_gateway, write_config
from tests.unit.gateway.test_gateway_live import tag as tag  # the fixture

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
