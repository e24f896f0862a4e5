"""What several swarm-level parts share: the task statements, the stack budgets, one swarm run."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from app import evaluate
from app.runner import run_swarm
from graphs.context import Context
from graphs.roles import every_role
from graphs.state import InputState, OutputState


def bench_tasks(count: int) -> list[str]:
    """The first ``count`` statements of the shipped task set (repeated when it is smaller)."""
    tasks = evaluate.load_tasks(evaluate.DEFAULT_TASKS)
    return [tasks[i % len(tasks)].statement for i in range(count)]


# Completion budgets of the swarm runs that measure the stack (not the answers): SmolLM2-135M
# at temperature 0 sometimes repeats itself up to a schema-sized budget (900 tokens for a
# brief), which would make one run cost minutes on 2 cores. Cut-off answers are retried once.
STACK_BUDGETS = {
    "researcher_tokens": 256,
    "coder_tokens": 256,
    "summarizer_tokens": 128,
    "auditor_tokens": 128,
}


def one_model_context(base_url: str, model: str, **overrides: Any) -> Context:
    """Every role on ``model``, no fallback, no revisions, bounded budgets unless overridden."""
    settings: dict[str, Any] = {
        **STACK_BUDGETS,
        "base_url": base_url,
        **every_role(model),
        "fallback_model": None,
        "max_revisions": 0,
        "candidates": 1,  # one coder call a round: these parts measure the stack, not search
        "revision_candidates": 1,
        "call_idle_s": 900.0,
    }
    settings.update(overrides)
    return Context(**settings)


@dataclass
class SwarmRun:
    """One swarm run: its output and timings."""

    state: OutputState
    wall_s: float
    nodes: int

    @property
    def completion_tokens(self) -> int:
        """Completion tokens of all its calls."""
        return sum(m.completion_tokens for m in self.state.metrics)

    @property
    def llm_s(self) -> float:
        """Seconds on the run's critical path spent in model calls (auditors run in parallel)."""
        return evaluate.model_seconds(self.state.metrics)


async def one_run(
    task: str, context: Context, on_call: Callable[[], None] | None = None
) -> SwarmRun:
    """Run the graph once; count the nodes that ran (``on_call`` after each model call)."""
    nodes = 0

    def count(_node: str, update: Mapping[str, Any]) -> None:
        nonlocal nodes
        nodes += 1
        for _ in update.get("metrics") or []:
            if on_call is not None:
                on_call()

    start = time.monotonic()
    state = await run_swarm(InputState(task=task), context, progress=count)
    return SwarmRun(state, time.monotonic() - start, nodes)
