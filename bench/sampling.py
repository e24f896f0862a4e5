"""How often one answer of the plain prompt is right, by sampling temperature.

``python -m bench.sampling [--tasks DIR] [--split dev] [--temperatures 0 0.4 0.8] [--samples 4]
[--prompts plain stub] [--without-docstrings] [--concurrency 8] [--base-url URL] [--model NAME]
[--out FILE]``: each task of the split asked as the swarm asks its plain candidates (the task
verbatim, "reply with a ```python block", ``PLAIN_STOP``) and kept as the eval's plain arm
keeps an answer (its first block's definitions), once greedy and ``--samples`` times at each
temperature above 0, every answer graded by the task's hidden tests and its tokens counted.
``--prompts plain stub`` asks the stub candidates' prompt too (the answer begun on the entry
point's line); ``--without-docstrings`` asks each prompt again as a revision round's candidates
ask it, unable to open a docstring (``<prompt>-nodoc``). A project task (a ``workspace/``,
``bench/tasks-project``) is asked as the swarm's candidates ask it: after the project's
snippets ranked against the task (:func:`tools.project_rank.project_context`, the run's
``Context.project_chars``), the stub begun with their imports; its answers are graded among the
project's files, as the eval grades. Per temperature: the tasks one answer solves on average
(the sum over tasks of the share of its answers that pass) and the tasks any of its answers
solves. This is how ``Context.sample_temperature`` was chosen: the swarm's candidates are
chosen by what most of them do, so what matters is how often one sample is right, not only
whether any is.

It also prints the ceiling of a search of this prompt (:func:`ceiling`): the tasks the greedy
answer or any of k sampled answers solves, for each k up to all of a task's samples (every
temperature and prompt pooled), expected over which k are drawn. No choice among candidates can
solve a task none of them solves, so this bounds what a swarm that writes k samples beside the
greedy answer can gain over one plain call.

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
from langchain_core.messages import AIMessage, BaseMessage, convert_to_openai_messages

from agents.coder import (
    CODE_TOKENS,
    DOCSTRING_WORDS,
    PLAIN_STOP,
    ban_body,
    code_of,
    definitions,
    plain_messages,
    stub_messages,
)
from agents.examples import entry_point_of
from app.evaluate import EvalTask, load_tasks
from bench.report import save_results
from graphs.context import CODER_DEFAULT, Context
from runtime.settings import Device, load_settings
from runtime.vllm import VLLMServer, VLLMSpec
from tools.project_rank import project_context

TASKS = Path(__file__).parent / "tasks"
PROMPTS = ("plain", "stub")
"""The prompts a sampled swarm candidate asks with (:func:`graphs.coding.round_prompts`)."""
GRADE_TIMEOUT_S = 30.0


def asked(
    task: EvalTask, prompts: Sequence[str], project_chars: int = Context.project_chars
) -> dict[str, list[BaseMessage] | None]:
    """The messages a swarm candidate of each of ``prompts`` sends for ``task``.

    In a project, the ranked snippets (mapped once for all the prompts) come first. None for
    a stub without an entry point to begin.
    """
    statement, entry = task.statement.strip(), entry_point_of(task.statement)
    project = imports = ""
    if task.workspace is not None:
        found = project_context(
            task.workspace, statement, database=task.database, budget_chars=project_chars
        )
        project, imports = found.text, found.imports
    return {
        prompt: stub_messages(statement, entry, project, imports)
        if prompt == "stub"
        else plain_messages(statement, entry, project=project)
        for prompt in prompts
    }


async def answer(
    http: httpx.AsyncClient,
    base_url: str,
    model: str,
    messages: Sequence[BaseMessage],
    temperature: float,
    bad_words: Sequence[str] = (),
) -> tuple[str, int]:
    """One answer's kept code (its first block's definitions) and its completion tokens.

    Kept as the plain arm keeps it; ``bad_words`` as a revision round's candidates send them.
    """
    last = messages[-1]
    begun = last.content if isinstance(last, AIMessage) and isinstance(last.content, str) else ""
    body: dict[str, Any] = {
        "model": model,
        "messages": convert_to_openai_messages(messages),
        "max_tokens": CODE_TOKENS,
        "temperature": temperature,
        "stop": list(PLAIN_STOP),
    } | ban_body(bad_words)
    if begun:  # a stub: the model goes on from the begun answer, as the swarm's stub does
        body |= {"continue_final_message": True, "add_generation_prompt": False}
    if temperature == 0:
        body["seed"] = 0  # a sampled request gets none: a server that chunks its prefills
        # (vLLM's CPU build by default) fails a seeded sampled request
    response = await http.post(f"{base_url}/chat/completions", json=body)
    response.raise_for_status()
    reply = response.json()
    text = reply["choices"][0]["message"]["content"] or ""
    if begun and not text.lstrip().startswith("```"):
        text = begun + text
    tokens = int((reply.get("usage") or {}).get("completion_tokens") or 0)
    return definitions(code_of(text)), tokens


async def measure(
    base_url: str,
    model: str,
    tasks: Sequence[EvalTask],
    temperatures: Sequence[float],
    samples: int,
    concurrency: int = 8,
    prompts: Sequence[str] = ("plain",),
    without_docstrings: bool = False,
) -> list[dict[str, Any]]:
    """One row per (task, prompt, temperature): each answer's hidden grade and its tokens.

    A stub row is left out for a task with no entry point to begin. ``without_docstrings``:
    each prompt is asked a second time, as ``<prompt>-nodoc``, with the revision rounds' ban
    (:data:`agents.coder.DOCSTRING_WORDS`).
    """
    gate = asyncio.Semaphore(concurrency)
    asks = {t.name: await asyncio.to_thread(asked, t, prompts) for t in tasks}

    async with httpx.AsyncClient(timeout=900, trust_env=False) as http:

        async def graded(
            task: EvalTask, messages: list[BaseMessage], temperature: float, banned: bool
        ) -> tuple[bool, int]:
            words = DOCSTRING_WORDS if banned else ()
            async with gate:
                code, tokens = await answer(http, base_url, model, messages, temperature, words)
            result = await asyncio.to_thread(task.grade, code, GRADE_TIMEOUT_S)
            return result.solved, tokens

        async def row(
            task: EvalTask, prompt: str, asked_as: str, temperature: float
        ) -> dict[str, Any]:
            nodoc = prompt != asked_as
            messages = asks[task.name][asked_as] or []
            count = 1 if temperature == 0 else samples
            answers = await asyncio.gather(
                *(graded(task, messages, temperature, nodoc) for _ in range(count))
            )
            return {
                "task": task.name,
                "prompt": prompt,
                "temperature": temperature,
                "solved": [solved for solved, _ in answers],
                "tokens": [tokens for _, tokens in answers],
            }

        variants = [(p, p) for p in prompts]
        if without_docstrings:
            variants += [(f"{p}-nodoc", p) for p in prompts]

        return list(
            await asyncio.gather(
                *(
                    row(t, p, asked_as, temp)
                    for t in tasks
                    for p, asked_as in variants
                    if asks[t.name][asked_as] is not None
                    for temp in temperatures
                )
            )
        )


def summarize(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per prompt and temperature: answers per task, tasks one answer solves, and any."""
    by: dict[tuple[str, float], list[list[bool]]] = {}
    tokens: dict[tuple[str, float], list[int]] = {}
    for row in rows:
        key = (row.get("prompt", "plain"), row["temperature"])
        by.setdefault(key, []).append(row["solved"])
        tokens.setdefault(key, []).extend(row.get("tokens", []))
    return [
        {
            "prompt": prompt,
            "temperature": temperature,
            "tasks": len(runs),
            "answers_per_task": max(len(run) for run in runs),
            "mean_solved": round(sum(sum(run) / len(run) for run in runs), 2),
            "any_solved": sum(any(run) for run in runs),
            "mean_tokens": (
                round(sum(spent) / len(spent), 1)
                if (spent := tokens[(prompt, temperature)])
                else None
            ),
        }
        for (prompt, temperature), runs in sorted(by.items())
    ]


def ceiling(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tasks the greedy answer or any of ``k`` samples solves, for k = 0 .. the samples per task.

    A task's samples are its answers at every temperature above 0, of every prompt; a draw
    of k of its n samples, c of them right, misses all of them with probability
    C(n-c, k) / C(n, k), so the expected count is exact, not simulated. A task without a
    greedy answer counts its samples only; k stops at the fewest samples any task has.
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
    parser.add_argument(
        "--prompts",
        nargs="+",
        choices=PROMPTS,
        default=["plain"],
        help="the candidates' prompts to ask with (default: plain)",
    )
    parser.add_argument(
        "--without-docstrings",
        action="store_true",
        help="also ask each prompt with the revision rounds' docstring ban (<prompt>-nodoc)",
    )
    parser.add_argument("--concurrency", type=int, default=8, help="requests in flight")
    parser.add_argument("--base-url", help="an OpenAI-compatible server (default: start one)")
    parser.add_argument("--model", help="catalogue model (default: the coder's)")
    parser.add_argument("--out", type=Path, help="write the results JSON here")
    args = parser.parse_args(argv)
    if args.samples < 1 or args.concurrency < 1 or any(t < 0 for t in args.temperatures):
        parser.error("--samples and --concurrency must be at least 1, temperatures at least 0")
    settings = load_settings()
    model = args.model or CODER_DEFAULT
    tasks = load_tasks(args.tasks, split=args.split)

    def run(base_url: str) -> list[dict[str, Any]]:
        return asyncio.run(
            measure(
                base_url,
                model,
                tasks,
                args.temperatures,
                args.samples,
                concurrency=args.concurrency,
                prompts=args.prompts,
                without_docstrings=args.without_docstrings,
            )
        )

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
        prompts=args.prompts,
        summary=summary,
        ceiling=bound,
        rows=rows,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
