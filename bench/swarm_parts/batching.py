"""Part 1b: swarm runs through the gateway vs direct.

:func:`swarm_batching`: N = 1, 2, 4, 8 concurrent swarm runs straight to one vLLM CPU server
and through a gateway in front of that same server, each arm a fixed time window: runs/min,
tokens/s, their ratio; and the share of each real run's wall time that was not spent waiting
for the model.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import httpx

from bench.harness import PortFor, Workspace, gateway_in_front, sized_server
from bench.load import median, ratio
from bench.parts import SMALL
from bench.swarm_parts.common import (
    STACK_BUDGETS,
    SwarmRun,
    bench_tasks,
    one_model_context,
    one_run,
)
from graphs.context import Context


@dataclass(frozen=True)
class SwarmBatchSizes:
    """Knobs of the concurrent-runs part."""

    levels: tuple[int, ...] = (1, 2, 4, 8)
    window_s: float = 45.0
    """Each arm keeps N runs going for this long (a run that ends is followed by the next)."""
    max_model_len: int = 4096
    kvcache_gib: int = 2
    budgets: dict[str, int] = field(default_factory=lambda: dict(STACK_BUDGETS))


def swarm_batching(sizes: SwarmBatchSizes, work: Workspace, port_for: PortFor) -> dict[str, Any]:
    """N concurrent swarm runs direct to vLLM and through a gateway to the same server.

    Each arm is a fixed window in which N workers run swarm runs back to back, so the part
    takes the same time on any machine; tokens come from vLLM's own generation counter, read
    at the window's start and end, the same server for both arms.
    """
    with (
        sized_server(SMALL, sizes, work, port_for) as server,
        gateway_in_front(SMALL, server.base_url, work, "swarm-batching", port_for) as gw,
    ):
        targets = {"direct": (server.base_url, False), "gateway": (gw.api_base, True)}
        root = server.base_url.removesuffix("/v1")
        runs = asyncio.run(_batching_runs(sizes, targets, root))
    return {"sizes": asdict(sizes), **_batching_summary(runs)}


_GENERATED = re.compile(r"^vllm:generation_tokens_total(?:\{[^}]*\})?\s+(\S+)$")
_RUNNING = re.compile(r"^vllm:num_requests_running(?:\{[^}]*\})?\s+(\S+)$")
_FINISHED = re.compile(r"^vllm:request_success_total(?:\{[^}]*\})?\s+(\S+)$")


def counter_sum(metrics_text: str, pattern: re.Pattern[str]) -> float:
    """A Prometheus metric of vLLM summed over its labels (0 when absent)."""
    total = 0.0
    for line in metrics_text.splitlines():
        match = pattern.match(line.strip())
        if match:
            total += float(match[1])
    return total


async def _server_metrics(root_url: str) -> str:
    async with httpx.AsyncClient(timeout=30, trust_env=False) as http:
        reply = await http.get(f"{root_url}/metrics")
        reply.raise_for_status()
        return reply.text


async def _settle(root_url: str, timeout_s: float = 120.0) -> None:
    """Wait until vLLM runs no request (the cancelled runs' requests were aborted)."""
    deadline = time.monotonic() + timeout_s
    while counter_sum(await _server_metrics(root_url), _RUNNING) > 0:
        if time.monotonic() > deadline:
            raise RuntimeError(f"vLLM still runs requests {timeout_s:g} s after a window")
        await asyncio.sleep(0.5)


def _run_record(run: SwarmRun) -> dict[str, Any]:
    report = run.state.report
    return {
        "status": run.state.status,
        "outcome": report.outcome if report else None,
        "wall_s": round(run.wall_s, 3),
        "llm_s": round(run.llm_s, 3),
        "nodes": run.nodes,
        "calls": len(run.state.metrics),
        "completion_tokens": run.completion_tokens,
        "error": run.state.error,
    }


async def run_window(
    tasks: Sequence[str], n: int, context: Context, window_s: float, root_url: str
) -> dict[str, Any]:
    """N workers run swarm runs back to back for ``window_s``; what finished, what vLLM wrote."""
    finished: list[SwarmRun] = []
    calls = 0

    def call_done() -> None:
        nonlocal calls
        calls += 1

    async def worker(index: int) -> None:
        while True:
            finished.append(await one_run(tasks[index % len(tasks)], context, call_done))
            index += n

    await _settle(root_url)
    before = await _server_metrics(root_url)
    workers = [asyncio.create_task(worker(i)) for i in range(n)]
    await asyncio.sleep(window_s)
    after = await _server_metrics(root_url)
    done, calls_done = list(finished), calls
    for task in workers:
        task.cancel()
    errors = [r for r in await asyncio.gather(*workers, return_exceptions=True)]
    crashed = [e for e in errors if not isinstance(e, asyncio.CancelledError)]
    if crashed:
        raise RuntimeError(f"a swarm run raised: {crashed[0]!r}")
    await _settle(root_url)
    tokens = int(counter_sum(after, _GENERATED) - counter_sum(before, _GENERATED))
    requests = int(counter_sum(after, _FINISHED) - counter_sum(before, _FINISHED))
    return {
        "n": n,
        "wall_s": window_s,
        "runs_finished": len(done),
        "runs_per_min": round(60 * len(done) / window_s, 3),
        "calls_finished": calls_done,
        "calls_per_min": round(60 * calls_done / window_s, 3),
        "requests_finished": requests,
        "requests_per_min": round(60 * requests / window_s, 3),
        "completion_tokens": tokens,
        "tokens_per_s": round(tokens / window_s, 3),
        "runs": [_run_record(r) for r in done],
    }


async def _batching_runs(
    sizes: SwarmBatchSizes, targets: dict[str, tuple[str, bool]], root_url: str
) -> list[dict[str, Any]]:
    records = []
    tasks = bench_tasks(max(sizes.levels) * 4)
    for index, n in enumerate(sizes.levels):
        order = ("direct", "gateway") if index % 2 == 0 else ("gateway", "direct")
        for arm in order:
            base_url, lease = targets[arm]
            context = one_model_context(base_url, SMALL, lease_models=lease, **sizes.budgets)
            window = await run_window(tasks, n, context, sizes.window_s, root_url)
            records.append({"arm": arm, **window})
    return records


def _batching_summary(records: list[dict[str, Any]]) -> dict[str, Any]:
    levels: dict[str, Any] = {}
    for n in sorted({r["n"] for r in records}):
        arms = {r["arm"]: r for r in records if r["n"] == n}
        direct, through = arms["direct"], arms["gateway"]
        levels[str(n)] = {
            "direct_runs_per_min": direct["runs_per_min"],
            "gateway_runs_per_min": through["runs_per_min"],
            "direct_tokens_per_s": direct["tokens_per_s"],
            "gateway_tokens_per_s": through["tokens_per_s"],
            "direct_calls_per_min": direct["calls_per_min"],
            "gateway_calls_per_min": through["calls_per_min"],
            "direct_requests_per_min": direct.get("requests_per_min"),
            "gateway_requests_per_min": through.get("requests_per_min"),
            "ratio_runs_per_min": ratio(through["runs_per_min"], direct["runs_per_min"], digits=4),
            "ratio_calls_per_min": ratio(
                through["calls_per_min"], direct["calls_per_min"], digits=4
            ),
            "ratio_tokens_per_s": ratio(through["tokens_per_s"], direct["tokens_per_s"], digits=4),
        }
    return {
        "records": records,
        "levels": levels,
        **not_llm_share(records),
        "runs_done": sum(run["status"] == "done" for r in records for run in r["runs"]),
        "runs_total": sum(len(r["runs"]) for r in records),
        "target": 0.9,
    }


def not_llm_share(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Median share of a run's wall time outside model calls: the single runs (N=1), else all.

    Failed runs count too: a failed call records its time and tokens like a successful one.
    """
    runs = [(r["n"], run) for r in records for run in r["runs"]]
    single = [run for n, run in runs if n == 1]
    picked = single or [run for _, run in runs]
    shares = [1 - run["llm_s"] / run["wall_s"] for run in picked if run["wall_s"] > 0]
    return {
        "not_llm_share_single_run": round(median(shares), 4) if shares else None,
        "not_llm_share_runs": len(shares),
        "not_llm_share_done": sum(run["status"] == "done" for run in picked),
        "not_llm_share_from": "N=1" if single else "all N",
    }
