"""Part 4: prefix caching.

:func:`prefix_caching`: vLLM's prefix-cache hit rate over the prompts of one swarm run and of
10 concurrent runs, with the shipped prompt layout (stable parts first) and the reverse.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from agents import test_writer as writer_agent
from agents.schemas import ResearchBrief
from bench.harness import PortFor, Workspace, reset_prefix_cache, sized_server
from bench.load import client
from bench.parts import SMALL
from bench.swarm_parts.common import bench_tasks, one_model_context, one_run
from bench.swarm_parts.scripted import (
    FAKE_BRIEF,
    FAKE_SUITE,
    _answer,
    _audit,
    _code,
    _node_of,
    fake_server,
)
from runtime.prefix_cache import hit_rate, server_counters


@dataclass(frozen=True)
class PrefixSizes:
    """Knobs of the prefix-cache part."""

    concurrent: int = 10
    layouts: tuple[str, ...] = ("stable_first", "variable_first")
    max_model_len: int = 4096
    kvcache_gib: int = 2


def prefix_caching(sizes: PrefixSizes, work: Workspace, port_for: PortFor) -> dict[str, Any]:
    """Hit rates per prompt layout over the prompts of whole swarm runs.

    The prompts are those the real nodes send in a full run (every node, in order) when the
    model's answers are scripted: each task's answers carry its own words, as real ones would.
    They are recorded from the scripted fake server, then replayed to a vLLM server whose
    prefix cache is emptied before each layout, for one token each: caching depends on the
    prompts alone, so the replay costs prefill only.
    """
    tasks = bench_tasks(1 + sizes.concurrent)
    recorded = {layout: record_prompts(tasks, layout, work, port_for) for layout in sizes.layouts}
    layouts: dict[str, Any] = {}
    for layout, runs in recorded.items():
        with sized_server(SMALL, sizes, work, port_for) as server:
            reset_prefix_cache(server)  # each layout starts from an empty cache
            root = server.base_url.removesuffix("/v1")
            start = server_counters(root)
            single = asyncio.run(replay_runs(server.base_url, runs[:1]))
            middle = server_counters(root)
            many = asyncio.run(replay_runs(server.base_url, runs[1:]))
            end = server_counters(root)
        if start["queries"] == end["queries"]:
            raise RuntimeError("vLLM reported no prefix-cache queries: is prefix caching on?")
        layouts[layout] = {
            "single_run": {**hit_rate(start, middle), "wall_s": single, "requests": len(runs[0])},
            "concurrent_runs": {
                **hit_rate(middle, end),
                "wall_s": many,
                "requests": sum(len(run) for run in runs[1:]),
            },
        }
    return {"sizes": asdict(sizes), "layouts": layouts}


def task_script(statement: str) -> list[dict[str, Any]]:
    """Answers for one passing run whose text carries the task's words, as real answers do."""
    head = " ".join(statement.split())[:200]
    brief = {**FAKE_BRIEF, "summary": head}
    lines = ["def add(a, b):", f"    # {head[:90]}", "    return a + b"]
    return [
        _answer(ResearchBrief, brief),
        _code(lines),
        _answer(writer_agent.TestSuite, FAKE_SUITE),
        _audit("security"),
        _audit("performance"),
    ]


def record_prompts(
    tasks: Sequence[str], layout: str, work: Workspace, port_for: PortFor
) -> list[list[dict[str, Any]]]:
    """The request bodies of one scripted swarm run per task, each run's in order."""
    runs = []
    with fake_server(work, port_for) as fake:
        context = one_model_context(
            fake.base_url,
            "fake-model",
            lease_models=False,
            prompt_layout=layout,
            parallel_brief=True,  # the researcher's prompt too, as a project's run asks it
        )
        for task in tasks:
            fake.reset()
            fake.script(*task_script(task))
            run = asyncio.run(one_run(task, context))
            if run.state.status != "done":
                raise RuntimeError(f"a scripted run failed: {run.state.error}")
            runs.append(fake.requests())
    return runs


def _is_audit(body: dict[str, Any]) -> bool:
    return _node_of(body).endswith("_auditor")


def replay_body(body: dict[str, Any], model: str) -> dict[str, Any]:
    """``body`` for ``model``, one token, no grammar: what is measured is the prompt's prefill."""
    dropped = {"response_format", "max_tokens", "max_completion_tokens", "stream", "model"}
    dropped |= {"stream_options"}  # vLLM refuses it without stream (400)
    kept = {key: value for key, value in body.items() if key not in dropped}
    return {**kept, "model": model, "max_completion_tokens": 1}


async def replay_runs(base_url: str, runs: Sequence[list[dict[str, Any]]]) -> float:
    """Replay the runs concurrently, each in its order (its two auditors together)."""
    started = time.monotonic()
    async with client() as http:

        async def send(body: dict[str, Any]) -> None:
            reply = await http.post(f"{base_url}/chat/completions", json=replay_body(body, SMALL))
            reply.raise_for_status()

        async def replay(run: list[dict[str, Any]]) -> None:
            index = 0
            while index < len(run):
                end = index + 1
                while _is_audit(run[index]) and end < len(run) and _is_audit(run[end]):
                    end += 1
                await asyncio.gather(*(send(body) for body in run[index:end]))
                index = end

        await asyncio.gather(*(replay(run) for run in runs))
    return round(time.monotonic() - started, 2)
