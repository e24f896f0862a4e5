"""The model gateway's benchmark (``make bench``): ``python -m bench.gateway_bench [--quick]``.

Measures, as ratios from one run (ours and the baseline always in the same invocation):

1. ``throughput``: completion tokens/s of 8 concurrent chat requests (temperature 0, fixed
   ``max_tokens``, ``ignore_eos``) through the gateway vs directly to the same vLLM CPU server
   (SmolLM2-135M); the arms alternate, 3 times each, medians and their ratio (target >= 0.9).
2. ``mixed``: one mixed 3-model schedule (60 requests, fake backends with a 2 s load, a budget
   that fits one model) under the ``grouped`` scheduler and under the naive ``fifo-mutex``
   (one request at a time, FIFO eviction): total time, swaps, p50/p95 latency.
3. ``swap-vllm``: stop/start swap latency of real vLLM CPU servers (SmolLM2-135M bf16 and fp32,
   budget fits one, requests alternate); ``swap-fake``: sleep/wake and stop/start swaps with
   the fake backend (vLLM's sleep mode needs CUDA): fake-backend numbers.

Writes ``<out>/<date>-<host>-gateway.json`` (every raw number, the command, the machine and the
versions) and ``.md`` (a table), prints the table; ``--quick`` runs smaller sizes
(``-gateway-quick`` files). Every server and gateway it starts is stopped on exit, error or
Ctrl-C.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import shlex
import shutil
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bench.harness import FakeSpec, PortFor, Workspace
from bench.parts import (
    SMALL,
    SMALL_FP32,
    MixedSizes,
    SwapSizes,
    ThroughputSizes,
    mixed_workload,
    swap_latency_fake,
    swap_latency_vllm,
    throughput,
)
from bench.report import machine, summary_rows, text_table, versions, write_outputs
from runtime.logs import configure_logging
from runtime.process import free_port
from runtime.settings import Device, LogFormat, load_settings
from runtime.vllm import VLLMNotInstalledError, detect_device

PARTS = ("throughput", "mixed", "swap-fake", "swap-vllm")
NEEDS_VLLM = {"throughput": (SMALL,), "swap-vllm": (SMALL, SMALL_FP32)}
NOTES = [
    "1: the gateway serves the vLLM server as a `remote` model, so both arms hit the very same "
    "server process (same weights, KV cache, warm state) and the ratio isolates the gateway's "
    "proxy overhead (parsing, admission, relaying; its CPU competes with vLLM's on this machine)."
    " A `vllm` backend would start a second server and mix server variance into the ratio.",
    "1: 128 tokens per request (ignore_eos, so every answer has exactly that many) make each "
    "timed burst last a few seconds; 5 alternating repetitions, the order flipped every time.",
    "1: throughput = completion tokens of all concurrent requests / wall time from the first "
    "send to the last answer; `paired` ratios compare each gateway run with its neighbour.",
    "2: 60 requests, Poisson arrivals over about 8 s (seed 4), each for one of 3 fake models "
    "(2 s load, 600 MB, 32 tokens at 128 tokens/s); budget 900 MB (one model); the shipped "
    "scheduling defaults (max_wait_s 10, linger_s 2); the policies run back to back.",
    "2: latency = last byte - scheduled arrival; swaps = loads counted by the gateway "
    "(/running), the first cold load included. The fake backend batches perfectly (it sleeps), "
    "so the grouped scheduler's concurrency costs nothing there; real vLLM on 2 cores gains "
    "less per added stream.",
    "3: step durations are the gateway's own `load_end`/`wake` and `unload`/`sleep`/`drain` "
    "log events; a swap = drain + unload/sleep + load/wake, the first (cold) load excluded. "
    "Loads are timed from process start to a healthy /health, polled every 0.5 s.",
]


def sizes_for(quick: bool) -> tuple[ThroughputSizes, MixedSizes, SwapSizes]:
    """The full or the quick sizes of the three parts."""
    if not quick:
        return ThroughputSizes(), MixedSizes(), SwapSizes()
    fake = FakeSpec(load_time_s=1.0)
    return (
        ThroughputSizes(max_tokens=64, reps=3),
        MixedSizes(requests=24, window_s=4.0, fake=fake),
        SwapSizes(vllm_requests=3, fake_requests=4, fake=fake),
    )


def _vllm_missing(part: str, models_dir: Path) -> str | None:
    """Why a real-vLLM part cannot run here, or None."""
    try:
        device = detect_device(Device.AUTO)
    except VLLMNotInstalledError as err:
        return str(err)
    if device is not Device.CPU:
        return f"written for the vLLM CPU build; the installed build is {device}"
    for name in NEEDS_VLLM.get(part, ()):
        if not (models_dir / name / "config.json").is_file():
            return f"{name} is not pulled: run `.venv/bin/edgeswarm models pull {name}`"
    return None


def run_parts(
    parts: Sequence[str], quick: bool, work: Workspace, port_for: PortFor = free_port
) -> dict[str, Any]:
    """Run the chosen parts in order; a failing part is recorded and the others still run."""
    one, two, three = sizes_for(quick)
    runners: dict[str, Callable[[], dict[str, Any]]] = {
        "throughput": lambda: throughput(one, work, port_for),
        "mixed": lambda: mixed_workload(two, work, port_for),
        "swap-fake": lambda: swap_latency_fake(three, work, port_for),
        "swap-vllm": lambda: swap_latency_vllm(three, work, port_for),
    }
    results: dict[str, Any] = {}
    for part in parts:
        print(f"== {part} ...", flush=True)
        started = time.monotonic()
        results[part] = _run_one(part, runners[part], work)
        print(f"== {part}: {time.monotonic() - started:.0f} s", flush=True)
    return results


def _run_one(part: str, runner: Callable[[], dict[str, Any]], work: Workspace) -> dict[str, Any]:
    started = time.monotonic()
    reason = _vllm_missing(part, work.models_dir) if part in NEEDS_VLLM else None
    if reason is not None:
        return {"skipped": reason}
    try:
        result = runner()
    except Exception as err:
        traceback.print_exc()
        return {"error": f"{type(err).__name__}: {err}", "seconds": time.monotonic() - started}
    result["seconds"] = round(time.monotonic() - started, 1)
    return result


def output_stem(results: dict[str, Any]) -> str:
    """``<YYYY-MM-DD>-<host>-gateway`` (``-quick`` appended for a quick run)."""
    stem = f"{results['date']}-{results['machine']['hostname']}-gateway"
    return stem + ("-quick" if results["quick"] else "")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(prog="python -m bench.gateway_bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller sizes (a rehearsal)")
    parser.add_argument("--out", type=Path, default=Path("bench/results"), help="results dir")
    parser.add_argument(
        "--parts", default=",".join(PARTS), help=f"comma-separated subset of {','.join(PARTS)}"
    )
    parser.add_argument("--keep-logs", action="store_true", help="keep the gateway/server logs")
    args = parser.parse_args(argv)
    args.parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    unknown = sorted(set(args.parts) - set(PARTS))
    if unknown:
        parser.error(f"unknown parts {unknown}; choose from {', '.join(PARTS)}")
    return args


def _python() -> str:
    """The interpreter as typed: relative to the working directory when it lies below it."""
    relative = os.path.relpath(sys.executable)
    return sys.executable if relative.startswith("..") else relative


def collect(args: argparse.Namespace, work: Workspace) -> dict[str, Any]:
    """Run the benchmark and gather everything the results file holds."""
    now = dt.datetime.now(dt.UTC)
    started = time.monotonic()
    host = machine()
    results: dict[str, Any] = {
        "benchmark": "gateway",
        "date": f"{now:%Y-%m-%d}",
        "started_at": now.isoformat(timespec="seconds"),
        "command": shlex.join([_python(), "-m", "bench.gateway_bench", *sys.argv[1:]]),
        "quick": args.quick,
        "machine": host,
        "versions": versions(),
        "notes": list(NOTES),
    }
    if args.quick:
        results["notes"].insert(0, "--quick: smaller sizes than below; see each part's `sizes`.")
    results["parts"] = run_parts(args.parts, args.quick, work)
    host["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    results["wall_s"] = round(time.monotonic() - started, 1)
    return results


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; 0 when every part ran, 1 when one failed, 130 on Ctrl-C."""
    args = parse_args(argv)
    configure_logging(LogFormat.CONSOLE, "warning")  # the process events would bury the table
    root = Path(tempfile.mkdtemp(prefix="edgeswarm-bench-"))
    work = Workspace(root, load_settings().models_dir.expanduser())
    try:
        results = collect(args, work)
    except KeyboardInterrupt:
        print(f"\ninterrupted; every process started was stopped; logs in {root}")
        return 130
    failed = [name for name, part in results["parts"].items() if "error" in part]
    keep = args.keep_logs or bool(failed)
    results["logs"] = str(root) if keep else None
    written = write_outputs(results, args.out, output_stem(results))
    print(text_table(summary_rows(results)))
    print("\nwrote " + ", ".join(str(p) for p in written))
    if keep:
        print(f"logs kept in {root}")
    else:
        shutil.rmtree(root, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
