"""Running the swarm for a caller: context from the endpoint, live progress, outputs on disk."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Durability
from pydantic import BaseModel, TypeAdapter

from agents.schemas import ResearchBrief, StageSummary
from agents.test_writer import TestSuite
from app.runs import RunRecord, RunStore, thread_config
from graphs.context import Context, Role
from graphs.llm import GRAMMARS, warm_up
from graphs.nodes import validate_task
from graphs.state import InputState, OutputState, State
from graphs.swarm import brief_in_parallel, build_graph, graph
from runtime.endpoint import list_models
from runtime.logs import get_logger
from tools.sql import SqlError, list_schema

ProgressFn = Callable[[str, Mapping[str, Any]], Awaitable[None] | None]
"""Called with each node's update as it lands; may be a coroutine function."""
SwarmGraph = CompiledStateGraph[State, Context, InputState, OutputState]
_log = get_logger("runner")


class InputError(ValueError):
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


def check_inputs(task: str, workspace: str | None, database: str | None) -> InputState:
    """The graph input, validated: clear errors for a bad task, workspace or database."""
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
    if not path.is_file():
        raise InputError(f"database {path} does not exist")
    try:
        list_schema(path)
    except (SqlError, sqlite3.Error) as err:
        raise InputError(f"database {path} cannot be read as SQLite ({err})") from None


def later_grammars(inputs: InputState) -> list[tuple[Role, type[BaseModel] | None]]:
    """The grammars a run asks for after its first step (that step compiles its own).

    The summarizer answers only with lookups to condense (a workspace or a database).
    """
    skip: set[tuple[Role, type[BaseModel] | None]] = {("researcher", ResearchBrief)}
    if brief_in_parallel(inputs):
        skip |= {("researcher", TestSuite), ("coder", None)}
    if not (inputs.workspace or inputs.database):
        skip.add(("summarizer", StageSummary))
    return [grammar for grammar in GRAMMARS if grammar not in skip]


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
        warming = asyncio.create_task(warm_up(context, later_grammars(inputs)))
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
    if report.get("findings"):
        lines += ["## Findings", ""]
        lines += [
            f"- {f['auditor']} [{f['severity']}] {f['title']}: {f['detail']}"
            for f in report["findings"]
        ]
        lines.append("")
    for name, content in (report.get("files") or {}).items():
        lines += [f"## {name}", "", "```python", content.rstrip(), "```", ""]
    lines += ["## Calls", "", "| node | model | prompt | completion | s | swap wait s |"]
    lines.append("| --- | --- | --- | --- | --- | --- |")
    for m in data.get("metrics", []):
        lines.append(
            f"| {m['node']} | {m['model']} | {m['prompt_tokens']} | {m['completion_tokens']} "
            f"| {m['seconds']} | {m['swap_wait_s']} |"
        )
    return "\n".join(lines) + "\n"
