"""The gateway's memory truth on a real NVIDIA GPU, in one short run (no vLLM needed).

``python -m bench.gpu_check --out DIR [--rehearse-on-cpu]`` checks, against the real card:

1. ``nvml``: :func:`runtime.nvml.device_memory` against CUDA's own ``cudaMemGetInfo`` (PyTorch,
   in a child process).
2. ``probe``: :func:`runtime.gateway.budget.measure_footprint` of a child process group that
   holds a known number of bytes on the GPU (PyTorch), against NVML's device totals: NVML's
   per-process figure where it lists the child's PID (``attributed``; not in a container with
   its own PID namespace, where NVML lists host PIDs), and the gateway's figure with a device
   mark taken before the hold (the difference of used bytes where NVML cannot attribute).
3. ``gateway``: the real gateway (``python -m runtime.gateway.cli``, device ``cuda``, the
   budget from NVML) with three fake model servers that hold real GPU memory
   (``tests/fakes/model_server.py --gpu-bytes``): two swap by sleeping (their bytes move to
   host RAM, the CUDA context stays, as with vLLM's sleep mode) and one, declared smaller than
   it is, swaps by stopping. A mixed workload runs while a sampler reads ``/running`` (the
   ledger) and NVML (what the GPU really holds, less what was in use before) every 0.1 s:
   neither may exceed the budget; the measured footprints and sleeping remains are recorded.

Writes ``DIR/gpu_check.json`` (every number) and prints a summary; exit 0 when every check
held, 1 when one did not. ``--rehearse-on-cpu`` runs part 3 without a GPU (the fakes hold
nothing, NVML is absent and the budget degrades to its configured bytes) to check the script
itself before spending device time.

On the lent GPU machine (Python 3.12 with PyTorch and nvidia-ml-py, no registry), carry the
gateway's other dependencies as wheels: ``bash bench/gpu_check_wheels.sh`` here writes them to
``.whl/``; there run ``python3 -m pip install -q --no-index --no-deps --target /tmp/site
.whl/*.whl && PYTHONPATH=/tmp/site:. python3 -m bench.gpu_check --out $OUT``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import httpx
import yaml

from runtime.gateway.budget import DeviceMark, measure_footprint
from runtime.nvml import NVMLUnavailableError, device_memory
from runtime.process import ManagedProcess, free_port
from runtime.settings import Device
from tests.fakes import fake_command

ROOT = Path(__file__).resolve().parent.parent
GiB = 2**30
HOLD = """
import sys, time, torch
held = torch.ones({n}, dtype=torch.uint8, device="cuda")
torch.cuda.synchronize()
free, total = torch.cuda.mem_get_info()
print(f"ready {{free}} {{total}}", flush=True)
time.sleep(600)
"""


def _hold(nbytes: int) -> tuple[subprocess.Popen[str], int, int]:
    """A child (own process group) holding ``nbytes`` on the GPU; CUDA's free and total."""
    child = subprocess.Popen(
        [sys.executable, "-c", HOLD.format(n=nbytes)],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    line = child.stdout.readline().split() if child.stdout is not None else []
    if not line or line[0] != "ready":
        child.kill()
        raise RuntimeError(f"the GPU holder did not start (exit {child.wait()})")
    return child, int(line[1]), int(line[2])


def _stop(child: subprocess.Popen[str]) -> None:
    os.killpg(child.pid, signal.SIGKILL)
    child.wait(timeout=30)


def check_nvml_and_probe(nbytes: int) -> dict[str, Any]:
    """Parts 1 and 2: NVML against CUDA, and the per-process probe against a known hold."""
    before = device_memory(0)
    mark = DeviceMark(before.used, held=0)
    child, cuda_free, cuda_total = _hold(nbytes)
    try:
        time.sleep(1.0)
        during = device_memory(0)
        attributed = measure_footprint(child.pid, Device.CUDA)
        measured = measure_footprint(child.pid, Device.CUDA, since=mark)
    finally:
        _stop(child)
    context = (measured or 0) - nbytes
    return {
        "gpu": before.name,
        "nvml_total": before.total,
        "cuda_total": cuda_total,
        "total_diff": before.total - cuda_total,
        "nvml_free_while_held": during.free,
        "cuda_free_while_held": cuda_free,
        "free_diff": during.free - cuda_free,
        "held_bytes": nbytes,
        "attributed_bytes": attributed,
        "measured_bytes": measured,
        "context_bytes": context,
        "nvml_used_delta": during.used - before.used,
        "ok": measured is not None and 0 <= context < 2 * GiB,
    }


def gateway_config(work: Path, *, gpu: bool) -> dict[str, Any]:
    """Three fake models holding real GPU memory (nothing when ``gpu`` is False)."""

    def fake(name: str, hold: int, **entry: Any) -> dict[str, Any]:
        command = fake_command(
            load_time=0.5,
            tokens=16,
            token_rate=160,
            gpu_bytes=hold if gpu else None,
            sleep_mode=entry.get("swap") == "sleep",
        )
        return {"name": name, "backend": "command", "command": command, **entry}

    sleepy = {"swap": "sleep", "sleep_level": 1, "sleep_footprint": 5 * GiB}
    return {
        "device": "cuda",
        "state_dir": str(work / "state"),
        # NVML's free memory less a reserve, capped so the check fits any card: two 5 GiB
        # models fit, the third needs a swap.
        "budget": {"gpu_memory": "free", "reserve": 2 * GiB, "bytes": 12 * GiB},
        "scheduling": {"max_wait_s": 2.0, "linger_s": 0.5, "watch_interval_s": 0.2},
        "models": [
            fake("a", 4 * GiB, footprint=5 * GiB, **sleepy),
            fake("b", 4 * GiB, footprint=5 * GiB, **sleepy),
            fake("c", 5 * GiB, footprint=4 * GiB),  # declared 4: NVML will say more
        ],
    }


async def _sample(http: httpx.AsyncClient, url: str, base_used: int | None, out: list[Any]) -> None:
    while True:
        running = (await http.get(f"{url}/running")).json()
        real = None
        if base_used is not None:
            try:
                real = (await asyncio.to_thread(device_memory, 0)).used - base_used
            except NVMLUnavailableError:
                real = None
        out.append((running["resident_bytes"], running["budget_bytes"], real))
        await asyncio.sleep(0.1)


async def _workload(url: str, base_used: int | None) -> dict[str, Any]:
    samples: list[Any] = []
    order = list("abcabcaabbcc")
    async with httpx.AsyncClient(timeout=300, trust_env=False) as http:
        sampler = asyncio.create_task(_sample(http, url, base_used, samples))
        started = time.monotonic()
        try:
            codes = []
            for index in range(0, len(order), 3):  # three at a time, mixed models
                group = order[index : index + 3]
                replies = await asyncio.gather(
                    *(
                        http.post(
                            f"{url}/v1/chat/completions",
                            json={"model": m, "messages": [{"role": "user", "content": "hi"}]},
                        )
                        for m in group
                    )
                )
                codes += [reply.status_code for reply in replies]
        finally:
            sampler.cancel()
        running = (await http.get(f"{url}/running")).json()
    return {"codes": codes, "seconds": time.monotonic() - started, "samples": samples, **running}


def check_gateway(
    work: Path, *, gpu: bool, port_for: Callable[[], int] = free_port
) -> dict[str, Any]:
    """Part 3: the gateway's ledger and the GPU's own figure, sampled under a workload."""
    config = work / "gpu-check.yaml"
    config.write_text(yaml.safe_dump(gateway_config(work, gpu=gpu), sort_keys=False))
    port = port_for()
    log = work / "gateway.log"
    command = [sys.executable, "-m", "runtime.gateway.cli", "--config", str(config)]
    command += ["--port", str(port), "--log-format", "json"]
    base_used = device_memory(0).used if gpu else None
    gateway = ManagedProcess(
        "gpu-check-gateway",
        command,
        health_url=f"http://127.0.0.1:{port}/health",
        log_path=log,
        start_timeout_s=120,
        cwd=ROOT,
    )
    with gateway:
        run = asyncio.run(_workload(f"http://127.0.0.1:{port}", base_used))
    samples = run.pop("samples")
    budget = run["budget_bytes"]
    worst_ledger = max((s[0] for s in samples), default=0)
    reals = [s[2] for s in samples if s[2] is not None]
    events = _events(log)
    return {
        "budget_bytes": budget,
        "requests_ok": sum(code == 200 for code in run["codes"]),
        "requests": len(run["codes"]),
        "seconds": round(run["seconds"], 1),
        "samples": len(samples),
        "worst_ledger_bytes": worst_ledger,
        "worst_real_bytes": max(reals) if reals else None,
        "budget_violations": run["budget_violations"],
        "models": run["models"],
        "loads": [e for e in events if e.get("event") == "load_end"],
        "sleeps": [e for e in events if e.get("event") == "sleep"],
        "wakes": [e for e in events if e.get("event") == "wake"],
        "warnings": [e for e in events if e.get("level") in ("warning", "error")],
        "ok": (
            run["budget_violations"] == 0
            and worst_ledger <= budget
            and all(code == 200 for code in run["codes"])
            and (not reals or max(reals) <= budget)
        ),
    }


def _events(log: Path) -> list[dict[str, Any]]:
    found = []
    for line in log.read_text("utf-8", errors="replace").splitlines():
        if line.startswith("{"):
            try:
                found.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return found


def main(argv: Sequence[str] | None = None) -> int:
    """Run the checks; write DIR/gpu_check.json; 0 when every check held."""
    parser = argparse.ArgumentParser(prog="python -m bench.gpu_check", description=__doc__)
    parser.add_argument("--out", type=Path, required=True, help="results directory")
    parser.add_argument("--rehearse-on-cpu", action="store_true", help="part 3 without a GPU")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="edgeswarm-gpu-check-"))
    results: dict[str, Any] = {"command": " ".join(["python -m bench.gpu_check", *(argv or [])])}
    if not args.rehearse_on_cpu:
        results["nvml_and_probe"] = check_nvml_and_probe(8 * GiB)
    results["gateway"] = check_gateway(work, gpu=not args.rehearse_on_cpu)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "gpu_check.json").write_text(json.dumps(results, indent=2) + "\n")
    for part, found in results.items():
        if isinstance(found, dict):
            print(part, "ok" if found["ok"] else "FAILED", json.dumps(_brief(found)))
    print(f"gateway log: {work / 'gateway.log'}")
    return 0 if all(p["ok"] for p in results.values() if isinstance(p, dict)) else 1


def _brief(found: dict[str, Any]) -> dict[str, Any]:
    keep = ("models", "loads", "sleeps", "wakes", "warnings")
    return {key: value for key, value in found.items() if key not in keep}


if __name__ == "__main__":
    raise SystemExit(main())
