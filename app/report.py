"""How the CLI shows results: readable text on a terminal, or JSON with ``--json``."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from runtime.provision import LocalModel, PullResult


def print_call(event: Mapping[str, Any]) -> None:
    """One stderr line per model call, from the run's ``custom`` stream, as the call ends.

    Also one when a node has waited a second for its model (a load or a swap) or for the
    run's endpoint (the embedded gateway starting), and one when that wait ended.
    """
    kind, phase = event.get("event"), event.get("phase")
    if kind in ("model", "endpoint"):
        what, why = (
            (f"model {event.get('model')}", "loading or swapping in")
            if kind == "model"
            else ("the endpoint", "the embedded gateway starting")
        )
        line = (
            f"waiting for {what} ({why})"
            if phase == "waiting"
            else f"{what} ready after {float(event.get('seconds', 0.0)):.1f} s"
        )
        print(f"[{event.get('node')}] {line}", file=sys.stderr, flush=True)
        return
    if kind != "call":
        return
    attempts = int(event.get("attempts", 1))
    print(
        f"[{event['node']}] {event['model']}: {event['prompt_tokens']}+"
        f"{event['completion_tokens']} tokens, {event['seconds']:.1f} s, swap wait "
        f"{event['swap_wait_s']:.1f} s"
        + (f", {attempts} attempts" if attempts > 1 else "")
        + ("" if event.get("ok", True) else ", no usable answer"),
        file=sys.stderr,
        flush=True,
    )


def print_run(output: dict[str, Any], *, as_json: bool) -> None:
    """Print a run's result: the report, or JSON."""
    if as_json:
        print(json.dumps(output, indent=2))
        return
    report = output.get("report") or {}
    thread = f" (thread {output['thread_id']})" if output.get("thread_id") else ""
    print(
        f"run {output['run_id']}{thread}: {output['status']}, outcome "
        f"{report.get('outcome', '-')} in {output['seconds']} s"
    )
    print(f"  reason: {report.get('reason') or output.get('error') or '-'}")
    if report.get("summary"):
        print(f"  task as understood: {report['summary']}")
    tests = report.get("tests")
    if tests:
        print(f"  tests: {tests['passed']} passed, {tests['failed']} failed")
    print(
        f"  revisions: {report.get('revisions', 0)}; tokens: {report.get('prompt_tokens', 0)} "
        f"prompt + {report.get('completion_tokens', 0)} completion"
    )
    looked = report.get("looked_up") or []
    if looked:
        uses = report.get("uses") or []
        print(
            f"  project: {len(looked)} looked up; the code uses "
            f"{', '.join(uses) if uses else 'none of them'}"
        )
    for note in report.get("project_notes") or []:
        print(f"  project note: {note}")
    for finding in report.get("findings", []):
        print(f"  finding: {finding['auditor']} [{finding['severity']}] {finding['title']}")
    for name, content in (report.get("files") or {}).items():
        print(f"\n--- {name} ---\n{content.rstrip()}")


def print_runs(rows: Sequence[Mapping[str, Any]], *, as_json: bool) -> None:
    """A table of runs, newest first (``edgeswarm runs``)."""
    if as_json:
        print(json.dumps(list(rows), indent=2))
        return
    if not rows:
        print("no runs yet")
        return
    print(f"{'THREAD ID':36}  {'STARTED':25}  {'STATUS':22}  {'LAST NODE':19}  TASK")
    for row in rows:
        status = row["status"] + (f" ({row['outcome']})" if row.get("outcome") else "")
        task = row["task"] if len(row["task"]) <= 60 else row["task"][:57] + "..."
        print(
            f"{row['thread_id']:36}  {row['started']:25}  {status:22}  "
            f"{row['last_node'] or '-':19}  {task}"
        )


def print_pull(result: PullResult) -> None:
    """One line per pulled model."""
    if result.changed:
        print(
            f"{result.name}: ready at {result.path} ({result.seconds:.0f} s); "
            f"check answer: {result.check_answer!r}"
        )
    else:
        print(f"{result.name}: already present at {result.path}")


def print_models(models: Sequence[LocalModel], *, as_json: bool) -> None:
    """A table of catalogue models and their local state."""
    rows = [
        {
            "name": m.entry.name,
            "model": m.entry.display_name,
            "dtype": m.entry.dtype,
            "license": m.entry.license,
            "status": "ready" if m.ready else ("incomplete" if m.size_bytes else "not pulled"),
            "size_bytes": m.size_bytes,
            "path": str(m.path),
        }
        for m in models
    ]
    if as_json:
        print(json.dumps(rows, indent=2))
        return
    print(f"{'NAME':32} {'DTYPE':9} {'STATUS':11} {'SIZE':>9}  LICENSE")
    for row in rows:
        size_bytes = int(row["size_bytes"])
        size = f"{size_bytes / 1e6:.0f} MB" if size_bytes else "-"
        print(f"{row['name']:32} {row['dtype']:9} {row['status']:11} {size:>9}  {row['license']}")


def print_eval_progress(arm: str, task: str, result: Any) -> None:
    """One stderr line per finished task and arm."""
    mark = "solved" if result.solved else "not solved"
    print(
        f"[{arm}] {task}: {mark} (hidden tests {result.hidden_passed} passed, "
        f"{result.hidden_failed} failed; {result.outcome}, {result.seconds:.0f} s)",
        file=sys.stderr,
        flush=True,
    )


def print_eval(results: dict[str, Any], *, as_json: bool) -> None:
    """The evaluation's summary (or everything as JSON)."""
    if as_json:
        print(json.dumps(results, indent=2))
        return
    summary = results["summary"]
    print(f"eval {results.get('run_id', '')}: {summary['tasks']} tasks in {results['seconds']} s")
    for arm in ("swarm", "plain", "plain+files", "direct"):
        if arm not in summary:
            continue
        part = summary[arm]
        valid = part["first_try_valid_share"]
        splits = ", ".join(
            f"{split} {part[split]['solved']}/{part[split]['tasks']}"
            for split in ("dev", "held-out")
            if split in part
        )
        json_valid = part.get("json_first_try_valid_share")
        guided = "" if json_valid is None else f" (guided JSON {100 * json_valid:.0f}%)"
        reach = part.get("some_candidate_solved")
        if reach is not None:
            splits += f"; some candidate right on {reach}"
        print(
            f"  {arm:6} solved {part['solved']}/{part.get('tasks', summary['tasks'])} "
            f"({100 * (part['solved_share'] or 0):.0f}%; {splits}), schema-valid on the first "
            f"try {'-' if valid is None else f'{100 * valid:.0f}%'} of {part['calls']} calls"
            f"{guided}, median {part.get('median_s')} s a task, {part['wall_s']} s in all"
        )
        long = part.get("long")
        if long:
            print(
                f"         long statements: solved {long['solved']}/{long['tasks']} (dev "
                f"{long['dev']}, held-out {long['held_out']}), median {long['median_s']} s"
            )
        kinds = part.get("kinds") or {}
        if kinds:
            print(
                "         by kind: "
                + "; ".join(
                    f"{kind} {k['solved']}/{k['tasks']} (dev {k['dev']}, held-out {k['held_out']})"
                    for kind, k in kinds.items()
                )
            )
        cut = part.get("cut_calls") or {}
        if cut or part.get("cut_while_streaming"):
            reasons = ", ".join(f"{why} {count}" for why, count in cut.items())
            print(
                f"         calls cut: {reasons or 'none'}; cut while streaming and lost: "
                f"{part.get('cut_while_streaming', 0)}"
            )
    for pair, sides in summary.get("pairs", {}).items():
        print(f"  {pair}: " + "; ".join(f"{k} {', '.join(v) or '-'}" for k, v in sides.items()))
    caching = summary.get("prefix_cache") or {}
    rates = [
        f"{name} {100 * part['hit_rate']:.0f}% of {part['queried_tokens']} tokens"
        for name, part in caching.items()
        if part and part.get("hit_rate") is not None
    ]
    print(f"  vLLM prefix-cache hits: {'; '.join(rates) or 'not measured'}")
    swaps = summary.get("gateway_swaps") or {}
    steps = [
        f"{arm} " + ", ".join(f"{kind} {count:g}" for kind, count in sorted(part.items()))
        for arm, part in swaps.items()
        if part
    ]
    if steps:
        print(f"  gateway swap steps: {'; '.join(steps)}")
    print(f"  models: {', '.join(f'{k} {v}' for k, v in results.get('models', {}).items())}")
