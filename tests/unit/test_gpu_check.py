"""``bench/gpu_check.py`` rehearsed without a GPU, so the device check cannot rot.

The real check runs on a lent NVIDIA machine (its docstring says how); here its gateway part
runs against fake servers that hold no GPU memory, NVML absent, the budget degraded to its
configured bytes: the workload, the sampling and the report are the ones the GPU run uses.
"""

from __future__ import annotations

from pathlib import Path

from bench.gpu_check import check_gateway
from tests.support.network import allowed_port


def test_the_gpu_check_rehearses_on_cpu(tmp_path: Path) -> None:
    found = check_gateway(tmp_path, gpu=False, port_for=allowed_port)
    assert found["ok"], found
    assert found["requests_ok"] == found["requests"] == 12
    assert found["budget_bytes"] == 12 * 2**30 and found["worst_ledger_bytes"] <= 12 * 2**30
    assert found["samples"] > 0 and found["worst_real_bytes"] is None  # no NVML here
    assert found["sleeps"] and found["wakes"]  # a and b swapped warm
    assert any(w["event"] == "budget_degraded" for w in found["warnings"])
