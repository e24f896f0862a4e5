"""``edgeswarm eval``: how often the swarm solves programming tasks it has never seen the tests of.

A task set is a directory of task directories (``bench/tasks`` ships 117,
``bench/tasks-project`` 40 with a project each), each holding ``task.txt`` (what the agents
see) and ``test_hidden.py`` (what they never see). For every task the chosen arms run against
the same endpoint and models:

- ``swarm``: the full graph (researcher, summarizers, coder, sandboxed checks, auditors,
  revisions); its final ``solution.py`` is graded;
- ``plain``: the coder model asked the way it was trained, the arm a user would otherwise
  use: the task verbatim as the only message, the definitions of its answer's first
  ```python block are the solution (its example calls and self-checks dropped, as a user
  would); no schema, no system prompt of ours, temperature 0, the coder's token budget;
- ``plain+files`` (project tasks only): the same plain call, handed every text file of the
  task's workspace in full and each table's ``CREATE`` with three rows before the task, as a
  user pastes a project;
- ``direct``: one grammar-guided code-block call of the same model with the coder's prompt
  (no checks, no retry, no fallback).

The task set has two splits: ``held_out.txt`` names the tasks never tuned on; the summary
gives each split apart, and ``pairs`` names the tasks only one arm of a pair solved.

Grading runs ``test_hidden.py`` against the arm's ``solution.py`` in the sandbox (the code is
model-written, so it is untrusted): solved means every hidden test passed. The report also
counts the share of agent calls whose structured answer was schema-valid on the first
attempt (no retry with a larger budget, no fallback).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import statistics
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Literal

import httpx
from langchain_core.messages import HumanMessage

from agents.coder import (
    CODE_TOKENS,
    CodeDraft,
    ainvoke_plain_code,
    code_of,
    coder_messages,
    definitions,
    plain_messages,
)
from agents.examples import entry_point_of
from agents.stream import StalledCallError, StreamSink, watching
from agents.structured import StructuredOutputError, TruncatedOutputError
from app.errors import UsageError
from app.runner import run_swarm
from graphs.coding import SOLUTION
from graphs.context import Context
from graphs.llm import NodeFailedError, ask_code, model_client, warm_up
from graphs.nodes import validate_task
from graphs.state import InputState, NodeMetrics, OutputState
from runtime.prefix_cache import Counters, combined, endpoint_counters, total_hit_rate
from tools.project_files import MAX_BYTES, MAX_FILE_BYTES, MAX_FILES, ProjectFiles
from tools.project_map import build_map, without_code_lines
from tools.sandbox import SandboxUnavailable, run_tests, test_counts

DEFAULT_TASKS = Path(__file__).resolve().parent.parent / "bench" / "tasks"
TASK_FILE, HIDDEN_TESTS = "task.txt", "test_hidden.py"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,79}$")
Arm = Literal["swarm", "plain", "plain+files", "direct"]
ARMS: tuple[Arm, ...] = ("swarm", "plain", "plain+files", "direct")
PROJECT_ARMS: frozenset[Arm] = frozenset({"plain+files"})
"""Arms that only run on project tasks (a task with a workspace); the others run on every task."""
HELD_OUT_FILE = "held_out.txt"
Split = Literal["all", "dev", "held-out"]
ProgressFn = Callable[[str, str, "ArmResult"], None]


class TaskSetError(UsageError):
    """The task set cannot be used (missing directory, file or malformed task)."""


LONG_STATEMENT_CHARS = 600
"""A statement this long (about 150 tokens) is a long task: a stub with rules, edge cases and
examples, as users paste them (bench/tasks' long stubs)."""


def statement_length(statement: str) -> Literal["short", "long"]:
    """``long`` for a statement of :data:`LONG_STATEMENT_CHARS` or more, else ``short``."""
    return "long" if len(statement.strip()) >= LONG_STATEMENT_CHARS else "short"


@dataclass(frozen=True)
class EvalTask:
    """One task: its name, the statement the agents see and the hidden tests they never see.

    A project task also has the user's project (``workspace``: its folder, which the runs get
    as their workspace, and its one SQLite file as their database) and a ``kind`` (what the
    task needs from it, ``facts.json``).
    """

    name: str
    statement: str
    hidden_tests: str
    split: Literal["dev", "held-out"] = "dev"
    workspace: Path | None = None
    kind: str = ""

    @property
    def database(self) -> Path | None:
        """The workspace's SQLite file (``*.db``), if it has one."""
        return workspace_database(self.workspace) if self.workspace else None

    def project(self) -> ProjectFiles:
        """The workspace's files, to copy beside a solution (none without a workspace)."""
        return ProjectFiles.scan(self.workspace)

    def input_state(self) -> InputState:
        """The graph's input: the statement, and the project as workspace and database."""
        database = self.database
        return InputState(
            task=self.statement,
            workspace=str(self.workspace) if self.workspace else None,
            database=str(database) if database else None,
        )

    def grade(self, code: str | None, timeout_s: float) -> Grade:
        """The hidden tests run against ``code``, among the task's project files."""
        return grade(code, self.hidden_tests, timeout_s=timeout_s, project=self.project())


def held_out_names(root: Path) -> set[str]:
    """The held-out tasks' names (``held_out.txt``; none when the set has no such file)."""
    path = root / HELD_OUT_FILE
    return set(path.read_text("utf-8").split()) if path.is_file() else set()


def _task_order(folder: Path) -> tuple[int, str]:
    """Sort key of a task directory: its number as a number, then its name.

    ``9_x`` < ``10_x`` < ``100_x``; a name without a leading number sorts after them all.
    """
    number, _, _ = folder.name.partition("_")
    return (int(number) if number.isdigit() else 1 << 30, folder.name)


def task_folders(root: Path) -> list[Path]:
    """The task directories under ``root`` (not hidden, not ``_``-prefixed), by number."""
    folders = (p for p in root.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))
    return sorted(folders, key=_task_order)


def load_tasks(
    root: Path,
    *,
    only: Sequence[str] = (),
    limit: int | None = None,
    split: Split = "all",
) -> list[EvalTask]:
    """The tasks under ``root`` in name order, filtered.

    ``only`` picks by name, ``split`` keeps one split, ``limit`` the first N.
    """
    if not root.is_dir():
        raise TaskSetError(f"task set {root} is not a directory")
    folders = task_folders(root)
    held = held_out_names(root)
    tasks = [_load_task(folder, folder.name in held) for folder in folders]
    if split != "all":
        tasks = [t for t in tasks if t.split == split]
    if not tasks:
        raise TaskSetError(f"task set {root} holds no task directories")
    if only:
        unknown = sorted(set(only) - {t.name for t in tasks})
        if unknown:
            raise TaskSetError(f"unknown tasks {unknown}; the set has {len(tasks)} tasks")
        tasks = [t for t in tasks if t.name in set(only)]
    if limit is not None:
        if limit < 1:
            raise TaskSetError(f"--limit must be at least 1, not {limit}")
        tasks = tasks[:limit]
    return tasks


def _load_task(folder: Path, held_out: bool = False) -> EvalTask:
    statement_path, tests_path = folder / TASK_FILE, folder / HIDDEN_TESTS
    if not statement_path.is_file() or not tests_path.is_file():
        raise TaskSetError(f"task {folder} needs both {TASK_FILE} and {HIDDEN_TESTS}")
    if not _NAME.match(folder.name):
        raise TaskSetError(f"task name {folder.name!r} has characters other than [A-Za-z0-9_.-]")
    try:
        statement = validate_task(statement_path.read_text("utf-8"))
    except ValueError as err:
        raise TaskSetError(f"{statement_path}: {err}") from None
    workspace = folder / WORKSPACE_DIR
    if workspace.exists():
        _check_workspace(workspace)
    return EvalTask(
        folder.name,
        statement,
        tests_path.read_text("utf-8"),
        "held-out" if held_out else "dev",
        workspace=workspace.resolve() if workspace.exists() else None,
        kind=_kind(folder),
    )


WORKSPACE_DIR, FACTS_FILE = "workspace", "facts.json"
DATABASE_SUFFIXES = (".db", ".sqlite", ".sqlite3")


def workspace_database(workspace: Path) -> Path | None:
    """The one SQLite file of a task's workspace (``*.db``), anywhere in it; None without."""
    found = sorted(p for p in workspace.rglob("*") if p.suffix in DATABASE_SUFFIXES)
    return found[0] if found else None


def _check_workspace(workspace: Path) -> None:
    """A task's workspace: a folder of regular files the sandbox can take, one database at most."""
    if not workspace.is_dir() or workspace.is_symlink():
        raise TaskSetError(f"{workspace} must be a folder (the task's project)")
    files = [p for p in workspace.rglob("*") if not p.is_dir()]
    if any(p.is_symlink() for p in files):
        raise TaskSetError(f"{workspace} holds a symlink; a task's project is plain files")
    databases = [p for p in files if p.suffix in DATABASE_SUFFIXES]
    if len(databases) > 1:
        names = ", ".join(p.relative_to(workspace).as_posix() for p in databases)
        raise TaskSetError(f"{workspace} holds {len(databases)} databases ({names}); one at most")
    project = ProjectFiles.scan(workspace)
    if not project.whole or len(project.sizes) != len(files):
        raise TaskSetError(
            f"{workspace} is too large to copy beside a solution: {len(files)} files, "
            f"{sum(p.stat().st_size for p in files)} bytes (at most {MAX_FILES} files of "
            f"{MAX_FILE_BYTES} bytes each, {MAX_BYTES} in all)"
        )


def _kind(folder: Path) -> str:
    """What a project task needs from its project (``facts.json``'s ``kind``); "" without one."""
    path = folder / FACTS_FILE
    if not path.is_file():
        return ""
    try:
        kind = json.loads(path.read_text("utf-8")).get("kind", "")
    except (ValueError, AttributeError) as err:
        raise TaskSetError(f"{path}: not a JSON object with a kind ({err})") from None
    if not isinstance(kind, str):
        raise TaskSetError(f"{path}: kind must be a string, not {kind!r}")
    return kind


@dataclass
class Grade:
    """The hidden tests run against one solution."""

    solved: bool
    passed: int
    failed: int
    detail: str = ""


def grade(
    code: str | None,
    hidden_tests: str,
    *,
    timeout_s: float = 30.0,
    project: ProjectFiles | None = None,
) -> Grade:
    """Run ``hidden_tests`` against ``code`` (as solution.py) in the sandbox.

    ``project``: a project task's workspace, every file of it copied beside solution.py at its
    relative path (the tests open its database by file name, the code imports its modules).
    """
    if not code or not code.strip():
        return Grade(False, 0, 0, "no solution.py")
    files = project.for_code(code, hidden_tests) if project else {}
    result = run_tests({**files, SOLUTION: code, HIDDEN_TESTS: hidden_tests}, timeout_s=timeout_s)
    passed, failed = test_counts(result)
    solved = result.exit_code == 0 and passed > 0 and failed == 0
    detail = "" if solved else (result.stdout + "\n" + result.stderr).strip()[-600:]
    return Grade(solved, passed, failed, detail)


@dataclass
class ArmResult:
    """What one arm did on one task."""

    solved: bool = False
    hidden_passed: int = 0
    hidden_failed: int = 0
    seconds: float = 0.0
    outcome: str = ""
    """swarm: approved / unresolved / failed; direct: answered / invalid / failed."""
    revisions: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0
    """Structured calls that produced an answer (or failed for good)."""
    first_try_valid: int = 0
    """Calls whose first attempt was schema-valid."""
    json_calls: int = 0
    """Of the calls, those answered in guided JSON (every role's but the coder's code block)."""
    json_first_try_valid: int = 0
    """Of those, the ones whose first attempt was schema-valid."""
    model_s: float = 0.0
    """Seconds of the run's critical path spent in model calls (swarm: see model_seconds)."""
    error: str | None = None
    grading: str = ""
    attempts: list[dict[str, Any]] = field(default_factory=list)
    """swarm: every candidate, with its check results and its own hidden grade."""
    checks: list[str] = field(default_factory=list)
    """swarm: the checks every candidate ran (source, call, expected; PASS/FAIL for the
    chosen one), in the order of each attempt's ``checks_passed``."""
    code: str = ""
    """The graded solution.py."""
    cut: dict[str, int] = field(default_factory=dict)
    """Calls cut before their answer ended, by reason (``stalled``, ``straggler``)."""
    cut_streaming: int = 0
    """Of those, calls cut while they made progress (streaming, not looping) whose text was
    not kept: work lost."""
    timeline: list[dict[str, Any]] = field(default_factory=list)
    """swarm: every model call, in the order it began: its node, round, when it began (seconds
    after the run's start), how long it took and the tokens it wrote. Where the time goes."""


AUDITOR_NODES = ("security_auditor", "performance_auditor")


def model_seconds(metrics: Sequence[NodeMetrics]) -> float:
    """Seconds of a swarm run's wall time during which some model call was running.

    Calls in parallel (the researcher beside the coder's candidates and the test writer, the
    two auditors) overlap: the union of their intervals counts. Metrics without a start time
    (older records) count the slower of each round's auditors and every other call in full.
    """
    if metrics and all(m.started > 0 for m in metrics):
        spans = sorted((m.started, m.started + m.seconds) for m in metrics)
        total, (start, end) = 0.0, spans[0]
        for begin, finish in spans[1:]:
            if begin > end:
                total, start, end = total + end - start, begin, finish
            else:
                end = max(end, finish)
        return total + end - start
    serial = sum(m.seconds for m in metrics if m.node not in AUDITOR_NODES)
    rounds: dict[int, float] = {}
    for m in metrics:
        if m.node in AUDITOR_NODES:
            rounds[m.revision] = max(rounds.get(m.revision, 0.0), m.seconds)
    return serial + sum(rounds.values())


@dataclass
class TaskResult:
    """Both arms on one task."""

    task: str
    split: str = "dev"
    arms: dict[str, ArmResult] = field(default_factory=dict)
    length: Literal["short", "long"] = "short"
    """``long``: a statement of :data:`LONG_STATEMENT_CHARS` or more (a pasted stub with its
    docstring); the summary gives those apart."""
    kind: str = ""
    """A project task's kind (``helper``, ``config``, ``database``, ``format``); the summary
    gives each apart."""


async def swarm_arm(task: EvalTask, context: Context, grade_timeout_s: float) -> ArmResult:
    """Run the full graph on the task; grade its final solution.py."""
    start, began = time.monotonic(), time.time()
    try:
        state = await run_swarm(task.input_state(), context)
    except Exception as err:  # the arm's failure is a result, not the end of the eval
        return ArmResult(
            seconds=round(time.monotonic() - start, 2), outcome="failed", error=repr(err)
        )
    seconds = round(time.monotonic() - start, 2)
    result = await _graded_swarm(state, task, seconds, grade_timeout_s)
    result.timeline = timeline(state.metrics, began)
    result.attempts = _attempts(state)  # graded once the arm is done (grade_attempts)
    return result


def timeline(metrics: Sequence[NodeMetrics], began: float) -> list[dict[str, Any]]:
    """The run's model calls in the order they began, timed from ``began`` (epoch seconds)."""
    calls = sorted(metrics, key=lambda m: m.started)
    return [
        {
            "node": m.node,
            "revision": m.revision,
            "at": round(m.started - began, 2) if m.started > 0 else None,
            "seconds": round(m.seconds, 2),
            "completion_tokens": m.completion_tokens,
            "cut": m.cut,
        }
        for m in calls
    ]


def _attempts(state: OutputState) -> list[dict[str, Any]]:
    """Every candidate of a swarm run: its round, gate and checks passed (not yet graded)."""
    report = state.report
    return [asdict(attempt) for attempt in report.attempts] if report else []


async def grade_attempts(
    tasks: Sequence[EvalTask], results: Mapping[str, TaskResult], grade_timeout_s: float
) -> int:
    """Give every swarm candidate not yet graded its hidden grade (``hidden_solved``).

    For offline study only (:mod:`bench.replay`, ``some_candidate_solved``): no user grades
    every candidate, so this runs once the swarm arm is done, not beside the tasks still in
    flight, whose time it would otherwise slow (it was about 600 sandboxed test runs on the
    87 context-free tasks, a third of the arm's). Each distinct code of a task is graded once,
    and the final solution's grade is reused. Returns how many codes were graded.
    """
    gate = asyncio.Semaphore(os.cpu_count() or 1)
    pending: list[tuple[EvalTask, str, list[dict[str, Any]]]] = []
    for task in tasks:
        result = results[task.name].arms.get("swarm")
        if result is None:
            continue
        codes: dict[str, list[dict[str, Any]]] = {}
        for row in result.attempts:
            if "hidden_solved" not in row:
                codes.setdefault(str(row.get("code") or ""), []).append(row)
        for code, rows in codes.items():
            if code and code == result.code and result.outcome != "failed":
                for row in rows:
                    row["hidden_solved"] = result.solved
            else:
                pending.append((task, code, rows))

    async def graded(task: EvalTask, code: str, rows: list[dict[str, Any]]) -> None:
        async with gate:
            checked = await asyncio.to_thread(task.grade, code, grade_timeout_s)
        for row in rows:
            row["hidden_solved"] = checked.solved

    await asyncio.gather(*(graded(*one) for one in pending))
    return len(pending)


async def _graded_swarm(
    state: OutputState, task: EvalTask, seconds: float, grade_timeout_s: float
) -> ArmResult:
    report = state.report
    code = report.files.get(SOLUTION) if report else None
    checked = await asyncio.to_thread(task.grade, code, grade_timeout_s)
    json_calls = [m for m in state.metrics if m.node != "coder"]
    return ArmResult(
        solved=checked.solved,
        hidden_passed=checked.passed,
        hidden_failed=checked.failed,
        seconds=seconds,
        code=code or "",
        outcome=report.outcome if report else state.status,
        revisions=report.revisions if report else 0,
        prompt_tokens=sum(m.prompt_tokens for m in state.metrics),
        completion_tokens=sum(m.completion_tokens for m in state.metrics),
        calls=len(state.metrics),  # failed calls included
        first_try_valid=sum(1 for m in state.metrics if m.ok and m.attempts == 1),
        json_calls=len(json_calls),
        json_first_try_valid=sum(1 for m in json_calls if m.ok and m.attempts == 1),
        model_s=round(model_seconds(state.metrics), 3),
        error=state.error,
        grading=checked.detail,
        checks=list(report.checks) if report else [],
        cut=dict(Counter(m.cut for m in state.metrics if m.cut)),
        cut_streaming=sum(1 for m in state.metrics if _lost(m)),
    )


def _lost(metrics: NodeMetrics) -> bool:
    """A call cut while it made progress, whose streamed text was not kept."""
    return bool(metrics.cut) and metrics.cut != "looping" and metrics.streaming and not metrics.kept


async def plain_arm(
    task: EvalTask, context: Context, grade_timeout_s: float, *, files: bool = False
) -> ArmResult:
    """One plain chat call of the coder model, as a user would make it; grade its code block.

    Graded as a user would keep it: the first code block's definitions (see
    :func:`definitions`), also from an answer cut at the budget. With ``files`` (the
    ``plain+files`` arm), the user pasted their whole project before the task: every text
    file of the workspace in full and the database's schema with three rows a table
    (:func:`project_listing`): the ceiling of handing the model the right
    context.
    """
    start = time.monotonic()
    messages = plain_messages(task.statement)
    if files:
        listing = await asyncio.to_thread(project_listing, task.workspace, task.database)
        messages = [HumanMessage(f"{listing}\n\n{messages[0].content}")]
    model = context.model_for("coder")
    async with model_client(context, "eval/plain") as client:
        llm = client.chat(model, context.tokens_for("coder") or CODE_TOKENS)
        sink = StreamSink()
        try:
            await client.lease(model)
            # The swarm's own plain call (its greedy plain candidate): the same request, the
            # same stop, streamed and cut only when it stalls.
            with watching(client.watch(context.call_idle_s, sink)):
                answer = await ainvoke_plain_code(llm, CodeDraft, messages, model)
            code, outcome = answer.value.code, answer.finish_reason
            tokens = (answer.prompt_tokens, answer.completion_tokens)
        except StructuredOutputError as err:  # no block, or one the budget cut: kept as is
            code = definitions(code_of(sink.text))
            outcome = "length" if isinstance(err, TruncatedOutputError) else "no code block"
            tokens = (err.prompt_tokens, err.completion_tokens)
        except Exception as err:  # the arm's failure is a result, not the end of the eval
            return ArmResult(
                seconds=round(time.monotonic() - start, 2),
                outcome="failed",
                error=repr(err),
                cut={"stalled": 1} if isinstance(err, StalledCallError) else {},
                cut_streaming=int(isinstance(err, StalledCallError) and bool(err.partial)),
            )
    seconds = round(time.monotonic() - start, 2)
    checked = await asyncio.to_thread(task.grade, code, grade_timeout_s)
    return ArmResult(
        solved=checked.solved,
        hidden_passed=checked.passed,
        hidden_failed=checked.failed,
        seconds=seconds,
        outcome=outcome,
        prompt_tokens=tokens[0],
        completion_tokens=tokens[1],
        calls=1,
        model_s=seconds,
        grading=checked.detail,
        code=code,
    )


def project_listing(workspace: Path | None, database: Path | None = None) -> str:
    """The whole project as a user pastes it before a task (the ``plain+files`` arm).

    Every text file of the workspace in full under its path, and the database's tables,
    each with its CREATE statement and three rows (:func:`tools.project_map.build_map`), as
    the baseline is defined: not the values of its code columns that the swarm's map adds.
    Measured with them (commit cc3802b): this arm solved 3 of the 40 project tasks instead
    of 5 (21_units_shipped and 29_fines_total lost), so they would weaken the baseline.
    """
    parts = ["Here are the files of my project:"]
    project = ProjectFiles.scan(workspace)
    for name, data in project.for_code().items():
        if isinstance(data, bytes) and (b"\0" in data[:8192] or data.startswith(b"SQLite")):
            continue
        text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
        parts.append(f"### {name}\n```\n{text.rstrip()}\n```")
    if database is not None:
        tables = [
            without_code_lines(e.text)
            for e in build_map(None, database).entries
            if e.kind == "database"
        ]
        parts.append(
            f"### {database.name} (SQLite database)\n```\n" + "\n\n".join(tables) + "\n```"
        )
    return "\n\n".join(parts)


async def plain_files_arm(task: EvalTask, context: Context, grade_timeout_s: float) -> ArmResult:
    """The ``plain+files`` arm: one plain call handed the whole project (:func:`plain_arm`)."""
    return await plain_arm(task, context, grade_timeout_s, files=True)


async def direct_arm(task: EvalTask, context: Context, grade_timeout_s: float) -> ArmResult:
    """One guided code-block call with the coder's prompt (no checks, no retry, no fallback)."""
    start = time.monotonic()
    entry = entry_point_of(task.statement)
    try:
        answer = await ask_code(
            context,
            coder_messages(task.statement, entry),
            revision=0,
            sampling=(0.0, context.seed),
            greedy=False,
            node="direct_coder",
        )
    except NodeFailedError as err:
        seconds = round(time.monotonic() - start, 2)
        return ArmResult(
            seconds=seconds,
            outcome="invalid",
            prompt_tokens=err.metrics.prompt_tokens,
            completion_tokens=err.metrics.completion_tokens,
            calls=1,
            error=str(err)[:600],
        )
    seconds = round(time.monotonic() - start, 2)
    checked = await asyncio.to_thread(task.grade, answer.value.code, grade_timeout_s)
    return ArmResult(
        solved=checked.solved,
        hidden_passed=checked.passed,
        hidden_failed=checked.failed,
        seconds=seconds,
        outcome="answered",
        prompt_tokens=answer.metrics.prompt_tokens,
        completion_tokens=answer.metrics.completion_tokens,
        calls=1,
        first_try_valid=1,
        model_s=seconds,
        grading=checked.detail,
        code=answer.value.code,
    )


@dataclass(frozen=True)
class EvalOptions:
    """How an evaluation runs."""

    arms: tuple[Arm, ...] = ARMS
    concurrency: int = 4
    grade_timeout_s: float = 30.0


async def evaluate(
    tasks: Sequence[EvalTask],
    context: Context,
    options: EvalOptions = EvalOptions(),
    *,
    progress: ProgressFn | None = None,
    done: Mapping[tuple[str, str], ArmResult] | None = None,
) -> dict[str, Any]:
    """Run each arm over every task (``concurrency`` tasks at a time); results and summary.

    The arms run one after the other (all swarm runs, then all direct calls), so neither
    competes with the other for the device. The summary's ``prefix_cache`` gives vLLM's
    prefix-cache hit rate per arm and over the arms together (None where the endpoint shows
    no vLLM metrics).

    ``done``: results kept from an earlier, stopped evaluation, by (arm, task name)
    (:class:`ResultLog`); those arms do not run again on those tasks and ``progress`` is not
    called for them. An arm's ``wall_s`` and the cache figures cover what ran this time.
    """
    done = done or {}
    if options.concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, not {options.concurrency}")
    gate = asyncio.Semaphore(options.concurrency)
    results = _task_results(tasks, options.arms, done)
    runners = {
        "swarm": swarm_arm,
        "plain": plain_arm,
        "plain+files": plain_files_arm,
        "direct": direct_arm,
    }
    arm_seconds: dict[str, float] = {}

    async def one(arm: Arm, task: EvalTask) -> None:
        async with gate:
            result = await runners[arm](task, context, options.grade_timeout_s)
        results[task.name].arms[arm] = result
        if progress is not None:
            progress(arm, task.name, result)

    async def counters() -> dict[str, Counters] | None:
        return await asyncio.to_thread(endpoint_counters, context.base_url, context.api_key)

    async def swaps() -> dict[str, float] | None:
        return await asyncio.to_thread(gateway_swaps, context.base_url, context.api_key)

    caching: dict[str, dict[str, Any] | None] = {}
    swapped: dict[str, dict[str, float] | None] = {}
    warmed: dict[str, float] = {}
    if context.warm_up and any((arm, t.name) not in done for arm in options.arms for t in tasks):
        # As a server that has been up a while: every grammar compiled before the first task.
        warmed = await warm_up(context)
        context = replace(context, warm_up=False)
    for arm in options.arms:
        # plain+files on a set without projects: the plain arm already ran; and an arm
        # that did every task before has nothing to run
        chosen = [t for t in _arm_tasks(tasks, arm) if (arm, t.name) not in done]
        if not chosen:
            continue
        started = time.monotonic()
        before, swaps_before = await counters(), await swaps()
        await asyncio.gather(*(one(arm, task) for task in chosen))
        arm_seconds[arm] = round(time.monotonic() - started, 1)
        caching[arm] = total_hit_rate(before, await counters())
        swapped[arm] = _difference(swaps_before, await swaps())
    if "swarm" in options.arms:  # kept results of a stopped eval too
        await grade_attempts(tasks, results, options.grade_timeout_s)
    # the arms' own stretches summed: a server stopped between arms takes no count with it
    caching["all"] = combined(caching.values())
    rows = [results[t.name] for t in tasks]
    summary = summarize(rows, options.arms, arm_seconds)
    summary["prefix_cache"] = caching
    summary["gateway_swaps"] = swapped
    summary["warm_up_s"] = warmed
    return {
        "summary": summary,
        "tasks": [
            {
                "task": r.task,
                "split": r.split,
                **({"kind": r.kind} if r.kind else {}),
                **{a: asdict(x) for a, x in r.arms.items()},
            }
            for r in rows
        ],
        "options": asdict(options),
    }


PARTIAL_SUFFIX = ".partial.jsonl"
_PARTIAL_FORMAT = 1


def partial_path(out: Path) -> Path:
    """Where an evaluation writing ``out`` keeps each result as it ends."""
    return out.with_name(out.name + PARTIAL_SUFFIX)


class ResumeMismatchError(UsageError):
    """The kept results belong to an evaluation with other settings."""


class ResultLog:
    """Each arm's result on each task, appended as it ends: an interrupted eval keeps them.

    JSON lines: a header naming what the results depend on (``identity``: the task set,
    models, endpoint, revision limit), then one ``{"arm", "task", "result"}`` line per
    result, flushed and synced as written. A line cut by a kill is ignored when read back.
    """

    def __init__(self, path: Path, identity: Mapping[str, Any]) -> None:
        self.path = path
        self.identity = dict(identity)

    def load(self) -> dict[tuple[str, str], ArmResult]:
        """The results kept so far ({} when there is no file yet).

        Raises:
            ResumeMismatchError: the file was written by an evaluation with other settings.
            TaskSetError: the file is not such a log at all.
        """
        try:
            lines = self.path.read_text("utf-8").splitlines()
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError) as err:
            raise TaskSetError(f"cannot read the kept results {self.path}: {err}") from None
        rows = [row for row in map(_json_line, lines) if row is not None]
        if not rows:
            return {}
        header = rows[0]
        if header.get("edgeswarm_eval_partial") != _PARTIAL_FORMAT:
            raise TaskSetError(
                f"{self.path} is not a file of kept eval results; move it away or choose "
                "another --out"
            )
        before = header.get("identity")
        before = before if isinstance(before, dict) else {}
        changed = [
            key
            for key in sorted(set(before) | set(self.identity))
            if before.get(key) != self.identity.get(key)
        ]
        if changed:
            key = changed[0]
            raise ResumeMismatchError(
                f"{self.path} keeps the results of an eval with other settings ({key} was "
                f"{before.get(key)!r}, now {self.identity.get(key)!r}); run it as before to "
                "go on, or remove the file (or choose another --out) to start afresh"
            )
        known = {f.name for f in fields(ArmResult)}
        kept: dict[tuple[str, str], ArmResult] = {}
        for row in rows[1:]:
            result = row.get("result")
            if isinstance(result, dict) and {"arm", "task"} <= row.keys():
                values = {k: v for k, v in result.items() if k in known}
                kept[(str(row["arm"]), str(row["task"]))] = ArmResult(**values)
        return kept

    def start(self) -> None:
        """Create the file with its header, unless it has one.

        A header cut by a kill is written again.
        """
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with self.path.open(encoding="utf-8") as file:
                first = _json_line(file.readline())
        except FileNotFoundError:
            first = None
        if first is not None and first.get("edgeswarm_eval_partial") == _PARTIAL_FORMAT:
            return
        self.path.unlink(missing_ok=True)
        self._append({"edgeswarm_eval_partial": _PARTIAL_FORMAT, "identity": self.identity})

    def append(self, arm: str, task: str, result: ArmResult) -> None:
        """Keep one result (written and synced before this returns)."""
        self._append({"arm": arm, "task": task, "result": asdict(result)})

    def remove(self) -> None:
        """The evaluation finished and its results file is written: the log is not needed."""
        self.path.unlink(missing_ok=True)

    def _append(self, row: Mapping[str, Any]) -> None:
        with self.path.open("a", encoding="utf-8") as file:
            file.write(json.dumps(row) + "\n")
            file.flush()
            os.fsync(file.fileno())


def _json_line(line: str) -> dict[str, Any] | None:
    try:
        row = json.loads(line)
    except ValueError:
        return None  # a line cut by a kill, or an empty one
    return row if isinstance(row, dict) else None


def write_json(path: Path, data: Mapping[str, Any]) -> None:
    """Write ``data`` to ``path`` whole or not at all (a temporary file renamed over it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", "utf-8")
    tmp.replace(path)


def _task_results(
    tasks: Sequence[EvalTask], arms: Sequence[str], done: Mapping[tuple[str, str], ArmResult]
) -> dict[str, TaskResult]:
    """A result row per task, holding the ``done`` results of ``arms`` already."""
    results = {
        t.name: TaskResult(t.name, t.split, length=statement_length(t.statement), kind=t.kind)
        for t in tasks
    }
    for (arm, name), kept in done.items():
        if arm in arms and name in results:
            results[name].arms[arm] = kept
    return results


def _arm_tasks(tasks: Sequence[EvalTask], arm: str) -> list[EvalTask]:
    """The tasks ``arm`` runs on: project arms on project tasks only, the others on all."""
    return [t for t in tasks if t.workspace or arm not in PROJECT_ARMS]


def _arm_summary(done: Sequence[ArmResult], arm: str) -> dict[str, Any]:
    calls = sum(a.calls for a in done)
    json_calls = sum(a.json_calls for a in done)
    solved = sum(a.solved for a in done)
    seconds = sorted(a.seconds for a in done)
    structured = arm not in ("plain", "plain+files") and calls
    return {
        "tasks": len(done),
        "solved": solved,
        "solved_share": round(solved / len(done), 3) if done else None,
        "calls": calls,
        "first_try_valid_share": round(sum(a.first_try_valid for a in done) / calls, 3)
        if structured
        else None,
        "json_first_try_valid_share": round(
            sum(a.json_first_try_valid for a in done) / json_calls, 3
        )
        if json_calls
        else None,
        "syntax_errors": sum(1 for a in done if "SyntaxError" in a.grading),
        "median_s": round(statistics.median(seconds), 2) if seconds else None,
        "outcomes": dict(sorted(Counter(a.outcome for a in done).items())),
        "completion_tokens": sum(a.completion_tokens for a in done),
        "cut_calls": dict(sorted(sum((Counter(a.cut) for a in done), Counter()).items())),
        "cut_while_streaming": sum(a.cut_streaming for a in done),
        # the tasks where some candidate passed the hidden tests: what selection could reach
        "some_candidate_solved": sum(
            1 for a in done if any(row["hidden_solved"] for row in a.attempts)
        )
        if any(a.attempts for a in done)
        else None,
    }


def summarize(
    rows: Sequence[TaskResult], arms: Sequence[str], arm_seconds: dict[str, float]
) -> dict[str, Any]:
    """Per arm: solved share (whole set and each split), validity, time; per pair: who won.

    ``pairs["swarm/plain"]`` lists the tasks only the swarm solved and those only plain did.
    """
    summary: dict[str, Any] = {"tasks": len(rows)}
    for arm in arms:
        done = [r.arms[arm] for r in rows if arm in r.arms]
        summary[arm] = {**_arm_summary(done, arm), "wall_s": arm_seconds.get(arm)}
        for split in ("dev", "held-out"):
            part = [r.arms[arm] for r in rows if arm in r.arms and r.split == split]
            if part:
                summary[arm][split] = {"tasks": len(part), "solved": sum(a.solved for a in part)}
        for length in ("short", "long"):
            group = [r for r in rows if arm in r.arms and r.length == length]
            if group:
                summary[arm][length] = _group_summary(group, arm)
        kinds = sorted({r.kind for r in rows if arm in r.arms and r.kind})
        if kinds:
            summary[arm]["kinds"] = {
                kind: _group_summary([r for r in rows if arm in r.arms and r.kind == kind], arm)
                for kind in kinds
            }
    pairs: dict[str, dict[str, list[str]]] = {}
    for i, first in enumerate(arms):
        for second in arms[i + 1 :]:
            both = [r for r in rows if first in r.arms and second in r.arms]
            pairs[f"{first}/{second}"] = {
                f"only_{first}": [
                    r.task for r in both if r.arms[first].solved and not r.arms[second].solved
                ],
                f"only_{second}": [
                    r.task for r in both if r.arms[second].solved and not r.arms[first].solved
                ],
            }
    summary["pairs"] = pairs
    return summary


def _group_summary(group: Sequence[TaskResult], arm: str) -> dict[str, Any]:
    """Solved (all, dev, held-out), median seconds, cut calls: one arm on some tasks."""
    done = [r.arms[arm] for r in group]
    seconds = [a.seconds for a in done]
    return {
        "tasks": len(done),
        "solved": sum(a.solved for a in done),
        "dev": sum(r.arms[arm].solved for r in group if r.split == "dev"),
        "held_out": sum(r.arms[arm].solved for r in group if r.split == "held-out"),
        "median_s": round(statistics.median(seconds), 2) if seconds else None,
        "cut_while_streaming": sum(a.cut_streaming for a in done),
    }


_SWAPS = re.compile(
    r"^edgeswarm_gateway_(swaps_total|drain_cut_total)\{([^}]*)\}\s+(\S+)$", re.MULTILINE
)


def gateway_swaps(base_url: str, api_key: str = "EMPTY") -> dict[str, float] | None:
    """An edgeswarm gateway's swap steps so far, and the requests its drains cut.

    By kind (``load``, ``stop``, ``sleep``, ``wake``) and ``drain_cut``; None for an endpoint
    that is no edgeswarm gateway. A run that never swaps loads each model once and stops none.
    """
    root = base_url.rstrip("/").removesuffix("/v1")
    try:
        reply = httpx.get(
            f"{root}/metrics",
            headers={"Authorization": f"Bearer {api_key}"},
            timeout=10,
            trust_env=False,
        )
    except httpx.HTTPError:
        return None
    if reply.status_code != httpx.codes.OK:
        return None
    found: dict[str, float] = {}
    for name, labels, value in _SWAPS.findall(reply.text):
        kind = re.search(r'kind="([^"]*)"', labels)
        key = kind[1] if name == "swaps_total" and kind else "drain_cut"
        found[key] = found.get(key, 0.0) + float(value)
    return found if found else None


def _difference(
    before: dict[str, float] | None, after: dict[str, float] | None
) -> dict[str, float] | None:
    if before is None or after is None:
        return None
    return {key: after[key] - before.get(key, 0.0) for key in after}


def check_sandbox() -> None:
    """Raise SandboxUnavailable now rather than after the first run, when grading cannot work."""
    result = run_tests({"test_probe.py": "def test_ok():\n    assert True\n"}, timeout_s=30)
    if test_counts(result) != (1, 0):
        raise SandboxUnavailable(f"the sandbox's test runner did not run: {result.stderr[-300:]}")
