"""Running the swarm for a caller: context from the endpoint, live progress, outputs on disk."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any, TextIO

from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Durability
from pydantic import TypeAdapter

from app.errors import UsageError
from app.runs import RunRecord, RunStore, thread_config
from app.runs_db import RunsDatabaseError
from graphs.context import Context
from graphs.llm import warm_up
from graphs.nodes import validate_task
from graphs.state import InputState, OutputState, State
from graphs.swarm import build_graph, graph, later_grammars
from runtime.endpoint import list_models
from runtime.logs import get_logger
from tools.sql import SqlError, list_schema

ProgressFn = Callable[[str, Mapping[str, Any]], Awaitable[None] | None]
"""Called with each node's update as it lands; may be a coroutine function."""
SwarmGraph = CompiledStateGraph[State, Context, InputState, OutputState]
_log = get_logger("runner")
RUN_LOG = "run.log.jsonl"
"""The run's log file in its ``--out`` directory."""
_LINE_CHARS = 200


class InputError(UsageError):
    """The run's input is unusable (task, workspace, database)."""


def check_served(base_url: str, model: str, api_key: str | None = None) -> None:
    """Refuse a model the endpoint at ``base_url`` does not list (one that lists none passes).

    Raises:
        InputError: the endpoint lists its models and ``model`` is not one of them.
    """
    served = list_models(base_url.rstrip("/"), api_key=api_key)
    if served and model not in served:
        raise InputError(
            f"unknown model {model!r}: {base_url} serves {', '.join(map(repr, served))}"
        )


def read_task(argument: str, stdin: TextIO) -> str:
    """The task: ``argument`` itself, or all of ``stdin`` when it is ``-``, as UTF-8 text.

    Raises:
        InputError: the bytes on stdin are not UTF-8 (a binary file, another encoding).
    """
    if argument != "-":
        return argument
    raw = getattr(stdin, "buffer", None)
    if raw is None:  # a text stream without bytes underneath (tests)
        return stdin.read()
    data: bytes = raw.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(
            f"the task on stdin is not UTF-8 text (byte 0x{data[err.start]:02x} at offset "
            f"{err.start} of {len(data)}); give a text file, e.g. `edgeswarm run - < task.txt`"
        ) from None


def _check_text(task: str) -> None:
    """Refuse a task that holds undecodable bytes (argv and stdin keep them as surrogates)."""
    try:
        task.encode("utf-8")
    except UnicodeEncodeError as err:
        raise InputError(
            f"the task is not UTF-8 text (an undecodable byte at character {err.start}); "
            "give it as UTF-8 text"
        ) from None


def check_inputs(task: str, workspace: str | None, database: str | None) -> InputState:
    """The graph input, validated: clear errors for a bad task, workspace or database."""
    _check_text(task)
    try:
        text = validate_task(task)
    except ValueError as err:
        raise InputError(str(err)) from None
    if workspace is not None:
        _check_workspace(Path(workspace))
    if database is not None:
        _check_database(Path(database))
    return InputState(task=text, workspace=workspace, database=database)


def _check_workspace(path: Path) -> None:
    """A directory the run can list; the researcher's tools skip unreadable files inside it."""
    if not path.is_dir():
        raise InputError(f"workspace {path} is not a readable directory")
    try:
        with os.scandir(path) as entries:
            next(entries, None)
    except OSError as err:
        raise InputError(f"workspace {path} is not a readable directory ({err.strerror})") from None


def _check_database(path: Path) -> None:
    """A SQLite file the run can open read-only (checked before the run starts)."""
    if path.is_dir():
        raise InputError(f"database {path} is a directory, not a SQLite file")
    if not path.exists():
        raise InputError(f"database {path} does not exist")
    if not path.is_file():
        raise InputError(f"database {path} is not a regular file (a SQLite file is needed)")
    try:
        list_schema(path)
    except (SqlError, sqlite3.Error) as err:
        raise InputError(f"database {path} cannot be read as SQLite ({err})") from None


async def run_swarm(
    inputs: InputState | None,
    context: Context,
    *,
    progress: ProgressFn | None = None,
    swarm: SwarmGraph = graph,
    config: RunnableConfig | None = None,
    on_call: Callable[[Mapping[str, Any]], None] | None = None,
) -> OutputState:
    """Run the graph, reporting each node's update and each model call as it lands.

    ``on_call`` gets the ``custom`` stream's events (see :func:`graphs.llm.progress`).

    With a checkpointed ``swarm``, ``config`` names the thread, and ``inputs`` None continues
    it from its last checkpoint.
    """
    last: dict[str, Any] = {}
    part: Any
    # Checkpointed, each step is saved before the next starts: a kill loses only nodes in flight.
    durability: Durability | None = "sync" if swarm.checkpointer is not None else None
    # The grammars of later nodes compile beside the first ones, not each on its node's path.
    warming = None
    if context.warm_up and inputs is not None:
        warming = asyncio.create_task(
            warm_up(context, later_grammars(inputs, context.model_lookups))
        )
    try:
        async for part in swarm.astream(
            inputs,
            config,
            context=context,
            stream_mode=["updates", "values", "custom"],
            durability=durability,
        ):
            mode, chunk = part
            if mode == "values":
                last = chunk
            else:
                await _deliver(mode, chunk, progress, on_call)
    finally:
        if warming is not None:
            warming.cancel()
            await asyncio.gather(warming, return_exceptions=True)
    if config is not None and swarm.checkpointer is not None:
        last = (await swarm.aget_state(config)).values  # also when nothing was left to run
    names = {f.name for f in fields(OutputState)}
    return OutputState(**{key: value for key, value in last.items() if key in names})


async def _deliver(
    mode: str,
    chunk: Any,
    progress: ProgressFn | None,
    on_call: Callable[[Mapping[str, Any]], None] | None,
) -> None:
    """Hand a streamed part to its callback: a call event, or each node's update."""
    if mode == "custom":
        if on_call is not None:
            on_call(chunk)
        return
    if progress is None:
        return
    for node, update in chunk.items():
        done = progress(node, update or {})
        if done is not None:
            await done


async def run_checkpointed(
    store: RunStore,
    record: RunRecord,
    context: Context,
    *,
    progress: ProgressFn | None = None,
    on_call: Callable[[Mapping[str, Any]], None] | None = None,
) -> OutputState:
    """Run the record's thread to the graph's end: from its last checkpoint, or from the start.

    Nodes that finished before are not run again; each node that finishes is recorded as the
    run's last node.
    """

    async def on_node(node: str, update: Mapping[str, Any]) -> None:
        done = progress(node, update) if progress is not None else None
        if done is not None:
            await done
        await store.node_done(record.thread_id, node)

    options = record.options
    inputs = InputState(task=record.task, workspace=options.workspace, database=options.database)
    fresh = not await store.has_checkpoint(record.thread_id)
    swarm = build_graph().compile(name="swarm", checkpointer=store.saver)
    return await run_swarm(
        inputs if fresh else None,
        context,
        progress=on_node,
        on_call=on_call,
        swarm=swarm,
        config=thread_config(record.thread_id),
    )


async def check_resumable(store: RunStore, record: RunRecord) -> None:
    """Refuse, before any model starts, a checkpoint this version's graph cannot continue.

    A checkpoint names the steps still to run. One written by a version whose graph had a step
    this one lacks (a node renamed or removed) has nothing left to run here, yet no report:
    resuming it would end at once with an empty result.

    Raises:
        CheckpointError: the run stopped at such a step.
    """
    swarm = build_graph().compile(name="swarm", checkpointer=store.saver)
    snapshot = await swarm.aget_state(thread_config(record.thread_id))
    if not snapshot.values or snapshot.next or snapshot.values.get("report") is not None:
        return  # no checkpoint yet (starts afresh), steps left, or the graph's end reached
    after = f" after {record.last_node}" if record.last_node else ""
    raise CheckpointError(
        f"run {record.thread_id} stopped{after} at a step this version of edgeswarm does not "
        "have (its checkpoint was written by another version), so it cannot continue. Start "
        "the task again with `edgeswarm run`"
    )


class CheckpointError(RunsDatabaseError):
    """A run's checkpoint is readable, but this version's graph cannot continue it."""


def run_log_path(out: str | Path | None, log_dir: Path, thread_id: str) -> Path:
    """Where a run's JSON log goes: ``<out>/run.log.jsonl``, else ``<log_dir>/runs/<thread>``."""
    if out:
        return Path(out) / RUN_LOG
    return log_dir / "runs" / f"{thread_id}.log.jsonl"


class ProgressPrinter:
    """A run's live progress: one short line per model call and per decision, on stderr.

    - ``[node] MODEL: P+C tokens, S s`` as each model call ends (the swap wait, the attempts
      and a call with no usable answer are added when there are any);
    - ``[node] waiting for model M (loading or swapping in)`` or ``... for the endpoint``,
      when a node has waited a second for its model or for the embedded gateway to start;
    - ``[coder] 4 candidates, 3 pass the 7 checks`` after each round of checks (``; revising``
      when another round follows);
    - ``[auditors] approved``, or what they asked for, at the decision;
    - ``[node] failed: why`` when a node fails.

    Nothing else: a node that finished without deciding anything prints nothing (no bare
    ``[coder]``), and a stream event of another kind (``call_progress``, whatever comes
    next) prints nothing. Each line is also logged, at debug, to the run's log file.

    The same lines whether stderr is a terminal or not. Off a terminal (CI, a pipe, a
    supervisor) they stay on stderr, beside the JSON log lines: not on stdout, which carries
    the result alone, so that a script parses ``--json``'s output as one JSON document; and
    not suppressed, because a script watching a run that takes minutes on a CPU wants to see
    it alive and how far it got (a test waits for ``[test_writer] `` to know the test writer is
    done). They are easy to tell from the log lines: those start with ``{``, these with ``[``.
    """

    def __init__(self, stream: TextIO | None = None) -> None:
        """Print to ``stream``; None: whatever ``sys.stderr`` is at the time."""
        self._stream = stream
        self._audits: dict[str, Any] = {}

    def call(self, event: Any) -> None:
        """A ``custom`` stream event (see :func:`graphs.llm.emit`)."""
        if not isinstance(event, Mapping):
            return
        kind, node = event.get("event"), str(event.get("node", "?"))
        try:
            if kind == "call":
                self._line(node, _call_text(event))
            elif kind in ("model", "endpoint") and event.get("phase") == "waiting":
                what = (
                    f"model {event.get('model')} (loading or swapping in)"
                    if kind == "model"
                    else "the endpoint (the embedded gateway starting)"
                )
                self._line(node, f"waiting for {what}")
            elif kind in ("model", "endpoint"):
                fields = {k: v for k, v in event.items() if k not in ("event", "node")}
                _log.debug("wait_over", kind=kind, node=node, **fields)
        except (TypeError, ValueError, AttributeError) as err:  # a display never stops a run
            _log.debug("progress_unprintable", node=node, kind=kind, error=str(err))

    def node(self, node: str, update: Mapping[str, Any]) -> None:
        """A node's update as it lands: a line when it decided something or failed."""
        try:
            self._node(node, update)
        except (TypeError, ValueError, AttributeError, LookupError) as err:
            _log.debug("progress_unprintable", node=node, error=str(err))

    def _node(self, node: str, update: Mapping[str, Any]) -> None:
        if update.get("error") and update.get("status") == "failed":
            error = str(update["error"])
            self._line(node, f"failed: {error.removeprefix(f'{node}: ')}")
        elif node == "run_tests" and update.get("scored"):
            self._line("coder", _checks_text(update))
        elif node.endswith("_auditor") and isinstance(update.get("audits"), Mapping):
            self._audits.update(update["audits"])
        elif node == "decide":
            self._line("auditors", _audits_text(self._audits, update.get("decision")))
            self._audits = {}

    def _line(self, label: str, text: str) -> None:
        line = " ".join(f"[{label}] {text}".split())
        if len(line) > _LINE_CHARS:
            line = line[: _LINE_CHARS - 3] + "..."
        _log.debug("progress", line=line)
        print(line, file=self._stream or sys.stderr, flush=True)


def _call_text(event: Mapping[str, Any]) -> str:
    text = (
        f"{event.get('model', '?')}: {event.get('prompt_tokens', 0)}+"
        f"{event.get('completion_tokens', 0)} tokens, {float(event.get('seconds', 0.0)):.1f} s"
    )
    swap = float(event.get("swap_wait_s", 0.0) or 0.0)
    if swap >= 0.1:
        text += f", swap wait {swap:.1f} s"
    attempts = int(event.get("attempts", 1) or 1)
    if attempts > 1:
        text += f", {attempts} attempts"
    if event.get("cut"):
        text += f", cut: {event['cut']}"
    if not event.get("ok", True):
        text += ", no usable answer"
    return text


def _checks_text(update: Mapping[str, Any]) -> str:
    """``4 candidates, 3 pass the 7 checks``: the latest round's candidates, after the checks."""
    scored: Sequence[Any] = update["scored"]
    latest = max(getattr(c, "revision", 0) for c in scored)
    round_ = [c for c in scored if getattr(c, "revision", 0) == latest]
    checks = len(update.get("checks") or [])
    passing = sum(1 for c in round_ if _passes(c))
    text = f"{len(round_)} candidate{'' if len(round_) == 1 else 's'}, "
    if checks == 0:
        text += f"{passing} run{'s' if passing == 1 else ''}, no checks to pass"
    elif passing:
        text += f"{passing} pass{'es' if passing == 1 else ''} the {checks} checks"
    else:
        best = next((c for c in scored if getattr(c, "id", None) == update.get("best")), None)
        verdicts = getattr(best, "verdicts", [])
        text += f"none passes all {checks} checks"
        if verdicts:
            text += f" (the best passes {sum(1 for v in verdicts if getattr(v, 'ok', False))})"
    if update.get("decision") == "revise":
        text += "; revising"
    return text


def _passes(candidate: Any) -> bool:
    return not getattr(candidate, "gate", "") and all(
        getattr(v, "ok", False) for v in getattr(candidate, "verdicts", [])
    )


def _audits_text(audits: Mapping[str, Any], decision: Any) -> str:
    """``approved``, or which auditor asked for changes; and whether the coder revises."""
    verdicts = {kind: getattr(report, "verdict", "?") for kind, report in sorted(audits.items())}
    if not verdicts:
        text = "done"
    elif all(verdict == "approve" for verdict in verdicts.values()):
        text = "approved"
    else:
        text = ", ".join(
            f"{kind} approves"
            if verdict == "approve"
            else f"{kind} asks for changes ({_findings(audits[kind])})"
            for kind, verdict in verdicts.items()
        )
    if decision == "revise":
        text += "; revising for the tools' blocking evidence"
    return text


def _findings(report: Any) -> str:
    count = len(getattr(report, "findings", []) or [])
    return f"{count} finding{'' if count == 1 else 's'}"


def output_json(state: OutputState, **extra: Any) -> dict[str, Any]:
    """The output state as JSON-ready data, with extra top-level keys."""
    data: dict[str, Any] = TypeAdapter(OutputState).dump_python(state, mode="json")
    data.update(extra)
    return data


def write_outputs(out_dir: Path, data: dict[str, Any]) -> list[Path]:
    """Write the produced files, report.json and report.md under ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    report = data.get("report") or {}
    for name, content in (report.get("files") or {}).items():
        target = out_dir / Path(name).name  # names are the graph's own, never paths
        target.write_text(content, "utf-8")
        written.append(target)
    (out_dir / "report.json").write_text(json.dumps(data, indent=2) + "\n", "utf-8")
    (out_dir / "report.md").write_text(report_markdown(data), "utf-8")
    return [*written, out_dir / "report.json", out_dir / "report.md"]


def report_markdown(data: dict[str, Any]) -> str:
    """A human-readable report of a run."""
    report: dict[str, Any] = data.get("report") or {}
    lines = [
        f"# edgeswarm run {data.get('run_id', '')}",
        "",
        f"- status: **{data.get('status')}**, outcome: **{report.get('outcome', '-')}**",
        f"- reason: {report.get('reason', data.get('error') or '-')}",
        f"- revisions: {report.get('revisions', 0)}",
        f"- tokens: {report.get('prompt_tokens', 0)} prompt, "
        f"{report.get('completion_tokens', 0)} completion; {data.get('seconds', '?')} s",
        "",
        "## Task",
        "",
        str(data.get("task", "")),
        "",
    ]
    tests = report.get("tests")
    if tests:
        lines += ["## Tests", "", f"{tests['passed']} passed, {tests['failed']} failed", ""]
    if report.get("looked_up") or report.get("project_notes"):
        uses = set(report.get("uses") or [])
        lines += ["## Project", "", "What the swarm looked up (used: the final code names it):", ""]
        for item in report.get("looked_up") or []:
            mark = " (used)" if item.removeprefix("map: ") in uses else ""
            lines.append(f"- {item}{mark}")
        lines += [f"- note: {note}" for note in report.get("project_notes") or []]
        lines.append("")
    if report.get("findings"):
        lines += ["## Findings", ""]
        lines += [
            f"- {f['auditor']} [{f['severity']}] {f['title']}: {f['detail']}"
            for f in report["findings"]
        ]
        lines.append("")
    for name, content in (report.get("files") or {}).items():
        lines += [f"## {name}", "", "```python", content.rstrip(), "```", ""]
    lines += ["## Calls", "", "| node | model | prompt | completion | s | swap wait s | cut |"]
    lines.append("| --- | --- | --- | --- | --- | --- | --- |")
    for m in data.get("metrics", []):
        lines.append(
            f"| {m['node']} | {m['model']} | {m['prompt_tokens']} | {m['completion_tokens']} "
            f"| {m['seconds']} | {m['swap_wait_s']} | {_cut_text(m)} |"
        )
    return "\n".join(lines) + "\n"


def _cut_text(metrics: dict[str, Any]) -> str:
    """Why a call was cut, and what became of what it streamed ("" when it was not cut)."""
    why = metrics.get("cut") or ""
    if not why:
        return ""
    if metrics.get("kept"):
        return f"{why} (its whole code block was kept)"
    return f"{why} (while streaming; dropped)" if metrics.get("streaming") else why
