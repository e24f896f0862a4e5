"""How many of the test writer's checks hold, and on how many tasks, before and after a mend?

``python -m bench.writer_checks --tasks DIR [--split dev] --base-url URL [--out FILE]`` asks
the test writer once per task, greedy, with the prompt the swarm sends it (the project's
snippets first where the task has a workspace), and runs its checks against the task's
``reference.py`` in the sandbox. Two readings of the same answer are compared: the checks as
written (kept when well formed, :func:`agents.test_writer.well_formed_checks`) and the checks
:func:`agents.test_writer.writer_checks` keeps (its mends applied). A check holds when the
reference passes it. Start a server first (``edgeswarm serve --port 8811``).

One greedy answer a task: this measures what the writer's checks are worth to the
selection, not the selection itself (``make eval``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
from pydantic import ValidationError

from agents import test_writer as writer
from agents.examples import entry_point_of
from app.evaluate import EvalTask, load_tasks
from tools.check_runner import Check, run_checks
from tools.project_files import ProjectFiles
from tools.project_rank import project_context

MODEL = "qwen2.5-coder-0.5b-instruct"
_ROLES = {"system": "system", "human": "user", "ai": "assistant"}


def ask(client: httpx.Client, model: str, task: EvalTask) -> str:
    """The writer's greedy answer to ``task``, as the swarm asks it."""
    entry = entry_point_of(task.statement)
    project = project_context(task.workspace, task.statement).text if task.workspace else ""
    messages = writer.test_writer_messages(task.statement, entry, project=project)
    schema = {"name": "TestSuite", "schema": writer.TestSuite.model_json_schema()}
    body = {
        "model": model,
        "messages": [{"role": _ROLES[m.type], "content": str(m.content)} for m in messages],
        "temperature": 0,
        "max_tokens": 700,
        "response_format": {"type": "json_schema", "json_schema": schema},
    }
    reply = client.post("/chat/completions", json=body)
    reply.raise_for_status()
    return str(reply.json()["choices"][0]["message"]["content"] or "")


def readings(raw: str, task: EvalTask) -> tuple[list[Check], list[Check]]:
    """The answer's checks as written (well formed ones) and as the swarm keeps them."""
    entry = entry_point_of(task.statement)
    try:
        suite = writer.TestSuite.model_validate_json(raw)
    except ValidationError:
        return [], []
    written = writer.well_formed_checks([(c.call, c.expected) for c in suite.checks], entry)
    return written, writer.writer_checks(suite, entry)


def holding(task: EvalTask, root: Path, checks: Sequence[Check]) -> list[bool]:
    """Which ``checks`` the task's reference (``root/<task>/reference.py``) passes."""
    if not checks:
        return []
    reference = (root / task.name / "reference.py").read_text("utf-8")
    files = ProjectFiles.scan(task.workspace).for_code(reference) if task.workspace else None
    run = run_checks(reference, checks, entry_point_of(task.statement), project=files)
    return [v.ok for v in run.verdicts] if not run.gate else [False] * len(checks)


def measure(
    client: httpx.Client, model: str, root: Path, tasks: Sequence[EvalTask]
) -> dict[str, Any]:
    """Each task's two readings and what holds of each, with the totals."""
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda t: ask(client, model, t), tasks))
    rows: list[dict[str, Any]] = []
    for task, raw in zip(tasks, answers, strict=True):
        written, kept = readings(raw, task)
        held_written, held_kept = holding(task, root, written), holding(task, root, kept)
        rows.append(
            {
                "task": task.name,
                "answer": raw,
                "written": len(written),
                "written_hold": sum(held_written),
                "kept": len(kept),
                "kept_hold": sum(held_kept),
                "added": [
                    {"check": c.label(), "holds": ok}
                    for c, ok in zip(kept, held_kept, strict=True)
                    if c not in written
                ],
            }
        )
    total: dict[str, int] = {
        key: sum(int(row[key]) for row in rows)
        for key in ("written", "written_hold", "kept", "kept_hold")
    }
    total["tasks"] = len(rows)
    total["tasks_written_hold"] = sum(1 for row in rows if row["written_hold"])
    total["tasks_kept_hold"] = sum(1 for row in rows if row["kept_hold"])
    return {"total": total, "rows": rows}


def main(argv: Sequence[str] | None = None) -> int:
    """Measure one task set's writer checks and print the totals."""
    parser = argparse.ArgumentParser(prog="python -m bench.writer_checks", description=__doc__)
    parser.add_argument("--tasks", type=Path, required=True)
    parser.add_argument("--split", choices=("all", "dev", "held-out"), default="dev")
    parser.add_argument("--base-url", required=True, help="an OpenAI-compatible server")
    parser.add_argument("--model", default=MODEL)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    tasks = load_tasks(args.tasks, split=args.split)
    with httpx.Client(base_url=args.base_url, timeout=300) as client:
        result = measure(client, args.model, args.tasks, tasks)
    for row in result["rows"]:
        if row["added"]:
            print(row["task"], json.dumps(row["added"]))
    print(json.dumps(result["total"]))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
