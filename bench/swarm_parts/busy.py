"""Part ``busy``: the swarm on a sample of dev tasks on an idle machine and beside a CPU hog.

:func:`busy_machine`: ``edgeswarm eval``'s swarm arm over :data:`BusySizes.tasks` dev tasks
(an evenly spaced sample, :func:`sample_tasks`) behind one embedded gateway, first on the idle
machine, then beside :class:`bench.hog.Hog` (twice the cores in busy processes), back to back.
What a busy machine should cost is time, not answers: the same solved count, a longer wall
time. The results hold both arms' solved counts, wall times and their ratio, and per arm the
runs that failed and the calls that needed more than one attempt or gave no answer. A call is
cut only when it stalls (no token and no progress of its model for the settings'
``call_idle_s``), as for ``edgeswarm eval``: a busy machine's slow calls are awaited, and a
call cut anyway shows as it would for a user.

The hog arm runs second, on the same servers: it finds the idle arm's prompts in vLLM's prefix
cache, which if anything makes it faster, so the slowdown measured is not overstated.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from app import evaluate
from bench.harness import PortFor, Workspace
from bench.hog import Hog, default_procs
from bench.swarm_parts.evaluation import _eval_progress
from graphs.context import Context

ARM: evaluate.Arm = "swarm"


@dataclass(frozen=True)
class BusySizes:
    """Knobs of the busy-machine comparison."""

    tasks: int = 6
    """Dev tasks, sampled evenly over the split (:func:`sample_tasks`)."""
    hog_procs: int | None = None
    """Busy processes beside the second arm; None: twice the usable cores."""
    hog_max_s: float = 4 * 3600.0
    """The hog stops by itself after this long, whatever happens to the benchmark."""
    max_revisions: int = 1
    concurrency: int = 1
    """Tasks at a time: one, the wait of a user running one task."""


def sample_tasks(tasks: Sequence[evaluate.EvalTask], count: int) -> list[evaluate.EvalTask]:
    """``count`` tasks evenly spaced over ``tasks`` (in their order), the first one included.

    A fixed rule, so every run measures the same tasks: task ``i * len / count`` for ``i`` in
    ``0..count-1``. The set is ordered from easy to harder, so the sample spans it.
    """
    if count >= len(tasks):
        return list(tasks)
    return [tasks[i * len(tasks) // count] for i in range(count)]


def busy_machine(sizes: BusySizes, work: Workspace, port_for: PortFor) -> dict[str, Any]:
    """The swarm arm over the sampled tasks, idle then beside the hog; counts, times, ratio."""
    from graphs import endpoints
    from runtime.settings import load_settings
    from runtime.vllm import describe_dtype

    settings = load_settings(state_dir=work.state_dir / "busy")
    every = evaluate.load_tasks(evaluate.DEFAULT_TASKS, split="dev")
    tasks = sample_tasks(every, sizes.tasks)
    evaluate.check_sandbox()
    overrides = {"max_revisions": sizes.max_revisions, "call_idle_s": settings.call_idle_s}
    options = evaluate.EvalOptions(arms=(ARM,), concurrency=sizes.concurrency)
    procs = sizes.hog_procs or default_procs()
    arms: dict[str, dict[str, Any]] = {}
    with endpoints.swarm_endpoint(settings, endpoints.models_needed(overrides)) as endpoint:
        context = endpoints.context_for(endpoint, endpoints.served_models(endpoint), **overrides)
        print("   idle machine", flush=True)
        arms["idle"] = _arm(tasks, context, options)
        context = replace(context, warm_up=False)  # the grammars are compiled by now
        print(f"   beside {procs} busy processes", flush=True)
        with Hog(procs, sizes.hog_max_s):
            arms["hog"] = _arm(tasks, context, options)
    idle, hog = arms["idle"], arms["hog"]
    return {
        "sizes": {**asdict(sizes), "hog_procs": procs},
        "tasks": [t.name for t in tasks],
        "dtype": describe_dtype(settings),
        "arms": arms,
        "same_solved": idle["solved"] == hog["solved"],
        "wall_ratio": round(hog["wall_s"] / idle["wall_s"], 2) if idle["wall_s"] > 0 else None,
        "median_ratio": round(hog["median_s"] / idle["median_s"], 2) if idle["median_s"] else None,
    }


def _arm(
    tasks: Sequence[evaluate.EvalTask], context: Context, options: evaluate.EvalOptions
) -> dict[str, Any]:
    started = time.monotonic()
    results = asyncio.run(evaluate.evaluate(tasks, context, options, progress=_eval_progress))
    return arm_record(results, time.monotonic() - started)


def arm_record(results: dict[str, Any], seconds: float) -> dict[str, Any]:
    """One arm's figures from :func:`app.evaluate.evaluate`'s results for the swarm arm.

    ``wall_s`` is the eval's own time for the arm (its warm-up left out); ``seconds``, the
    whole call, stands in where the results lack it.
    """
    runs = [t[ARM] for t in results["tasks"] if ARM in t]
    summary = results["summary"].get(ARM, {})
    calls = sum(r["calls"] for r in runs)
    wall = summary.get("wall_s")
    return {
        "solved": sum(bool(r["solved"]) for r in runs),
        "runs": len(runs),
        "wall_s": round(float(wall if wall is not None else seconds), 1),
        "median_s": summary.get("median_s"),
        "per_task_s": {t["task"]: t[ARM]["seconds"] for t in results["tasks"] if ARM in t},
        "solved_tasks": [t["task"] for t in results["tasks"] if t.get(ARM, {}).get("solved")],
        "failed_runs": sum(1 for r in runs if r["outcome"] == "failed" or r["error"]),
        "errors": sorted({str(r["error"])[:200] for r in runs if r["error"]})[:5],
        "calls": calls,
        "calls_not_first_try": calls - sum(r["first_try_valid"] for r in runs),
        "outcomes": summary.get("outcomes"),
        "prefix_cache": results["summary"].get("prefix_cache", {}).get(ARM),
        "cut_calls": summary.get("cut_calls"),
        "cut_while_streaming": summary.get("cut_while_streaming"),
        "gateway_swaps": (results["summary"].get("gateway_swaps") or {}).get(ARM),
    }
