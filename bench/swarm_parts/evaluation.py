"""Part 8: effectiveness.

:func:`effectiveness`: ``edgeswarm eval`` over the first dev tasks one at a time, as a user
runs a task: the swarm's wall time per task against one plain call of its coder model.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from app import evaluate
from bench.harness import PortFor, Workspace
from bench.load import median


@dataclass(frozen=True)
class EffectivenessSizes:
    """Knobs of the task-set evaluation.

    One task at a time (``concurrency`` 1): the wall time a user waits for one task. ``make
    eval`` runs 4 tasks at once on 2 cores to finish the whole set in time; there every arm
    shares the cores, so its times measure compute per task, not a user's wait.
    """

    limit: int | None = 8
    split: evaluate.Split = "dev"
    concurrency: int = 1
    max_revisions: int = 1
    arms: tuple[str, ...] = ("swarm", "plain")
    overrides: dict[str, Any] = field(default_factory=dict)


def effectiveness(sizes: EffectivenessSizes, work: Workspace, port_for: PortFor) -> dict[str, Any]:
    """``edgeswarm eval`` in process: the embedded gateway with the default role models."""
    from graphs import endpoints
    from runtime.settings import load_settings
    from runtime.vllm import describe_dtype

    settings = load_settings(state_dir=work.state_dir / "eval")
    tasks = evaluate.load_tasks(evaluate.DEFAULT_TASKS, limit=sizes.limit, split=sizes.split)
    evaluate.check_sandbox()
    overrides = {"max_revisions": sizes.max_revisions, "call_idle_s": 900.0, **sizes.overrides}
    options = evaluate.EvalOptions(arms=sizes.arms, concurrency=sizes.concurrency)  # type: ignore[arg-type]
    with endpoints.swarm_endpoint(settings, endpoints.models_needed(overrides)) as endpoint:
        context = endpoints.context_for(endpoint, endpoints.served_models(endpoint), **overrides)
        results = asyncio.run(evaluate.evaluate(tasks, context, options, progress=_eval_progress))
    results["models"] = {spec.name: context.model_for(spec.name) for spec in context.roles}
    results["dtype"] = describe_dtype(settings)
    results["sizes"] = {**asdict(sizes), "tasks": len(tasks)}
    swarm = [t["swarm"] for t in results["tasks"] if "swarm" in t]
    shares = [1 - a["model_s"] / a["seconds"] for a in swarm if a["seconds"] > 0]
    results["not_model_share"] = round(median(shares), 4) if shares else None
    results["not_model_share_runs"] = len(shares)
    results["latency"] = wait_ratio(results["tasks"])
    return results


def wait_ratio(tasks: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The swarm's wall time per task against the plain call's, over tasks both arms ran.

    ``ratio`` is the swarm's median over the plain call's median (the issue's target: at most
    3); ``per_task`` each task's own ratio, whose median and maximum show the spread.
    """
    both = [t for t in tasks if "swarm" in t and "plain" in t and t["plain"]["seconds"] > 0]
    if not both:
        return None
    swarm = [float(t["swarm"]["seconds"]) for t in both]
    plain = [float(t["plain"]["seconds"]) for t in both]
    per_task = [s / p for s, p in zip(swarm, plain, strict=True)]
    return {
        "tasks": len(both),
        "swarm_median_s": round(median(swarm), 2),
        "plain_median_s": round(median(plain), 2),
        "ratio": round(median(swarm) / median(plain), 2),
        "per_task_median": round(median(per_task), 2),
        "per_task_max": round(max(per_task), 2),
    }


def _eval_progress(arm: str, task: str, result: evaluate.ArmResult) -> None:
    mark = "solved" if result.solved else "-"
    print(f"   [{arm}] {task}: {mark} ({result.outcome}, {result.seconds:.0f} s)", flush=True)
