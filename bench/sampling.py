"""How often one answer of the plain prompt is right, by sampling temperature.

``python -m bench.sampling [--split dev] [--temperatures 0 0.4 0.8] [--samples 4]
[--base-url URL] [--model NAME] [--out FILE]``: each task of the split asked as the swarm asks
its plain candidates (the task verbatim, "reply with a ```python block", ``PLAIN_STOP``) and
kept as the eval's plain arm keeps an answer (its first block's definitions), once
greedy and ``--samples`` times at each temperature above 0, every answer graded by the
task's hidden tests. Per temperature: the tasks one answer solves on average (the sum over
tasks of the share of its answers that pass) and the tasks any of its answers solves. This
is how ``Context.sample_temperature`` was chosen: the swarm's candidates are chosen by what
most of them do, so what matters is how often one sample is right, not only whether any is.

It also prints the ceiling of a search of this prompt (:func:`ceiling`): the tasks the greedy
answer or any of k sampled answers solves, for each k up to all of a task's samples (every
temperature above 0 pooled), expected over which k are drawn. No choice among candidates can
solve a task none of them solves, so this bounds what a swarm that writes k samples beside
the greedy answer can gain over one plain call.

Without ``--base-url`` it starts its own vLLM CPU server of the coder model. Tune on the dev
split only: a run on the held-out split measures (its ceiling, reported apart) and never
chooses a setting. Not part of ``make bench``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx

from agents.coder import CODE_TOKENS, PLAIN_STOP, code_of, definitions, plain_messages
from agents.examples import entry_point_of
from app.evaluate import EvalTask, grade, load_tasks
from bench.report import save_results
from graphs.context import CODER_DEFAULT
from runtime.settings import Device, load_settings
from runtime.vllm import VLLMServer, VLLMSpec

TASKS = Path(__file__).parent / "tasks"


async def answer(
    http: httpx.AsyncClient, base_url: str, model: str, task: EvalTask, temperature: float
) -> str:
    """One plain answer's kept code (the first block's definitions, as the plain arm keeps)."""
    [message] = plain_messages(task.statement, entry_point_of(task.statement))
    body: dict[str, Any] = {
        "model": model,
        "messages": [{"role": "user", "content": message.content}],
        "max_tokens": CODE_TOKENS,
        "temperature": temperature,
        "stop": list(PLAIN_STOP),
    }
    if temperature == 0:
        body["seed"] = 0  # a sampled request gets none: vLLM's CPU build fails seeded samples
    response = await http.post(f"{base_url}/chat/completions", json=body)
    response.raise_for_status()
    text = response.json()["choices"][0]["message"]["content"] or ""
    return definitions(code_of(text))


async def measure(
    base_url: str,
    model: str,
    tasks: Sequence[EvalTask],
    temperatures: Sequence[float],
    samples: int,
    concurrency: int = 8,
) -> list[dict[str, Any]]:
    """One row per (task, temperature): whether each of its answers passed the hidden tests."""
    gate = asyncio.Semaphore(concurrency)

    async with httpx.AsyncClient(timeout=900, trust_env=False) as http:

        async def graded(task: EvalTask, temperature: float) -> bool:
            async with gate:
                code = await answer(http, base_url, model, task, temperature)
            result = await asyncio.to_thread(grade, code, task.hidden_tests)
            return result.solved

        async def row(task: EvalTask, temperature: float) -> dict[str, Any]:
            count = 1 if temperature == 0 else samples
            solved = await asyncio.gather(*(graded(task, temperature) for _ in range(count)))
            return {"task": task.name, "temperature": temperature, "solved": list(solved)}

        return list(await asyncio.gather(*(row(t, temp) for t in tasks for temp in temperatures)))


def summarize(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per temperature: answers per task, tasks solved by one answer on average, by any."""
    by: dict[float, list[list[bool]]] = {}
    for row in rows:
        by.setdefault(row["temperature"], []).append(row["solved"])
    return [
        {
            "temperature": temperature,
            "tasks": len(runs),
            "answers_per_task": max(len(run) for run in runs),
            "mean_solved": round(sum(sum(run) / len(run) for run in runs), 2),
            "any_solved": sum(any(run) for run in runs),
        }
        for temperature, runs in sorted(by.items())
    ]


def ceiling(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tasks the greedy answer or any of ``k`` samples solves, for k = 0 .. the samples per task.

    A task's samples are its answers at every temperature above 0; a draw of k of its n
    samples, c of them right, misses all of them with probability C(n-c, k) / C(n, k), so the
    expected count is exact, not simulated. A task without a greedy answer counts its samples
    only; k stops at the fewest samples any task has.
    """
    greedy: dict[str, bool] = {}
    pooled: dict[str, list[bool]] = {}
    for row in rows:
        if row["temperature"] == 0:
            greedy[row["task"]] = greedy.get(row["task"], False) or any(row["solved"])
        else:
            pooled.setdefault(row["task"], []).extend(row["solved"])
    tasks = sorted(greedy.keys() | pooled.keys())
    most = min((len(pooled.get(task, [])) for task in tasks), default=0)
    out = []
    for k in range(most + 1):
        solved = 0.0
        for task in tasks:
            samples = pooled.get(task, [])
            n, right = len(samples), sum(samples)
            solved += 1.0 if greedy.get(task) else 1 - math.comb(n - right, k) / math.comb(n, k)
        out.append({"samples": k, "tasks": len(tasks), "solved": round(solved, 2)})
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Measure, print one line per temperature, write the JSON with ``--out``."""
    parser = argparse.ArgumentParser(prog="python -m bench.sampling", description=__doc__)
    parser.add_argument("--tasks", type=Path, default=TASKS, help="task set directory")
    parser.add_argument("--split", choices=("dev", "held-out", "all"), default="dev")
    parser.add_argument("--temperatures", type=float, nargs="+", default=[0.0, 0.4, 0.8])
    parser.add_argument("--samples", type=int, default=4, help="answers per temperature > 0")
    parser.add_argument("--base-url", help="an OpenAI-compatible server (default: start one)")
    parser.add_argument("--model", help="catalogue model (default: the coder's)")
    parser.add_argument("--out", type=Path, help="write the results JSON here")
    args = parser.parse_args(argv)
    if args.samples < 1 or any(t < 0 for t in args.temperatures):
        parser.error("--samples must be at least 1 and temperatures at least 0")
    settings = load_settings()
    model = args.model or CODER_DEFAULT
    tasks = load_tasks(args.tasks, split=args.split)

    def run(base_url: str) -> list[dict[str, Any]]:
        return asyncio.run(measure(base_url, model, tasks, args.temperatures, args.samples))

    if args.base_url:
        rows = run(args.base_url.rstrip("/"))
    else:
        spec = VLLMSpec(
            model_dir=settings.models_dir.expanduser() / model,
            served_name=model,
            device=Device.CPU,
            max_model_len=4096,
            cpu_kvcache_gib=2,
        )
        logs = Path(tempfile.mkdtemp(prefix="edgeswarm-sampling-"))
        with VLLMServer(spec, logs, start_timeout_s=600) as server:
            rows = run(server.base_url)
    summary, bound = summarize(rows), ceiling(rows)
    for line in [*summary, *bound]:
        print(json.dumps(line), flush=True)
    save_results(
        args.out,
        "sampling",
        argv,
        model=model,
        split=args.split,
        summary=summary,
        ceiling=bound,
        rows=rows,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
