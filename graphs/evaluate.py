"""``edgeswarm eval``: how often the swarm solves programming tasks it has never seen the tests of.

A task set is a directory of task directories (``bench/tasks`` ships 33), each holding
``task.txt`` (what the agents see) and ``test_hidden.py`` (what they never see). For every
task two arms run against the same endpoint and models:

- ``swarm``: the full graph (researcher, summarizers, coder, sandboxed checks, auditors,
  revisions); its final ``solution.py`` is graded;
- ``direct``: one call of the same coder model with the coder's system prompt, the task and
  the coder's token budget (no brief, no checks, no retry, no fallback).

Grading runs ``test_hidden.py`` against the arm's ``solution.py`` in the sandbox (the code is
model-written, so it is untrusted): solved means every hidden test passed. The report also
counts the share of agent calls whose structured answer was schema-valid on the first
attempt (no retry with a larger budget, no fallback).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from agents import prompts
from agents.schemas import CodeSubmission
from graphs.context import Context
from graphs.llm import NodeFailedError, ask
from graphs.nodes import SOLUTION, validate_task
from graphs.runner import run_swarm
from graphs.state import InputState, NodeMetrics, OutputState
from tools.sandbox import SandboxUnavailable, run_tests, test_counts

DEFAULT_TASKS = Path(__file__).resolve().parent.parent / "bench" / "tasks"
TASK_FILE, HIDDEN_TESTS = "task.txt", "test_hidden.py"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,79}$")
Arm = Literal["swarm", "direct"]
ARMS: tuple[Arm, ...] = ("swarm", "direct")
ProgressFn = Callable[[str, str, "ArmResult"], None]


class TaskSetError(ValueError):
    """The task set cannot be used (missing directory, file or malformed task)."""


@dataclass(frozen=True)
class EvalTask:
    """One task: its name, the statement the agents see and the hidden tests they never see."""

    name: str
    statement: str
    hidden_tests: str


def load_tasks(root: Path, *, only: Sequence[str] = (), limit: int | None = None) -> list[EvalTask]:
    """The tasks under ``root`` in name order (``only`` picks by name; ``limit`` the first N)."""
    if not root.is_dir():
        raise TaskSetError(f"task set {root} is not a directory")
    folders = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))
    tasks = [_load_task(folder) for folder in folders]
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


def _load_task(folder: Path) -> EvalTask:
    statement_path, tests_path = folder / TASK_FILE, folder / HIDDEN_TESTS
    if not statement_path.is_file() or not tests_path.is_file():
        raise TaskSetError(f"task {folder} needs both {TASK_FILE} and {HIDDEN_TESTS}")
    if not _NAME.match(folder.name):
        raise TaskSetError(f"task name {folder.name!r} has characters other than [A-Za-z0-9_.-]")
    try:
        statement = validate_task(statement_path.read_text("utf-8"))
    except ValueError as err:
        raise TaskSetError(f"{statement_path}: {err}") from None
    return EvalTask(folder.name, statement, tests_path.read_text("utf-8"))


@dataclass
class Grade:
    """The hidden tests run against one solution."""

    solved: bool
    passed: int
    failed: int
    detail: str = ""


def grade(code: str | None, hidden_tests: str, *, timeout_s: float = 30.0) -> Grade:
    """Run ``hidden_tests`` against ``code`` (as solution.py) in the sandbox."""
    if not code or not code.strip():
        return Grade(False, 0, 0, "no solution.py")
    result = run_tests({SOLUTION: code, HIDDEN_TESTS: hidden_tests}, timeout_s=timeout_s)
    passed, failed = test_counts(result.stdout)
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
    model_s: float = 0.0
    """Seconds of the run's critical path spent in model calls (swarm: see model_seconds)."""
    error: str | None = None
    grading: str = ""


AUDITOR_NODES = ("security_auditor", "performance_auditor")


def model_seconds(metrics: Sequence[NodeMetrics]) -> float:
    """Seconds of a swarm run's critical path spent in model calls, failed ones included.

    The two auditors of a round run in parallel: the slower one counts.
    """
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
    arms: dict[str, ArmResult] = field(default_factory=dict)


async def swarm_arm(task: EvalTask, context: Context, grade_timeout_s: float) -> ArmResult:
    """Run the full graph on the task; grade its final solution.py."""
    start = time.monotonic()
    try:
        state = await run_swarm(InputState(task=task.statement), context)
    except Exception as err:  # the arm's failure is a result, not the end of the eval
        return ArmResult(
            seconds=round(time.monotonic() - start, 2), outcome="failed", error=repr(err)
        )
    seconds = round(time.monotonic() - start, 2)
    return await _graded_swarm(state, task, seconds, grade_timeout_s)


async def _graded_swarm(
    state: OutputState, task: EvalTask, seconds: float, grade_timeout_s: float
) -> ArmResult:
    report = state.report
    code = report.files.get(SOLUTION) if report else None
    checked = await asyncio.to_thread(grade, code, task.hidden_tests, timeout_s=grade_timeout_s)
    return ArmResult(
        solved=checked.solved,
        hidden_passed=checked.passed,
        hidden_failed=checked.failed,
        seconds=seconds,
        outcome=report.outcome if report else state.status,
        revisions=report.revisions if report else 0,
        prompt_tokens=sum(m.prompt_tokens for m in state.metrics),
        completion_tokens=sum(m.completion_tokens for m in state.metrics),
        calls=len(state.metrics),  # failed calls included
        first_try_valid=sum(1 for m in state.metrics if m.ok and m.attempts == 1),
        model_s=round(model_seconds(state.metrics), 3),
        error=state.error,
        grading=checked.detail,
    )


def direct_messages(statement: str) -> list[BaseMessage]:
    """The direct arm's prompt: the coder's own system prompt and the bare task."""
    return [SystemMessage(prompts.CODER_SYSTEM), HumanMessage(f"Task:\n{statement}\n")]


async def direct_arm(task: EvalTask, context: Context, grade_timeout_s: float) -> ArmResult:
    """One call of the coder model with the coder's budget; grade the code it returns."""
    start = time.monotonic()
    try:
        answer = await ask(
            context,
            "coder",
            "direct_coder",
            CodeSubmission,
            direct_messages(task.statement),
            single_attempt=True,
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
    checked = await asyncio.to_thread(
        grade, answer.value.code, task.hidden_tests, timeout_s=grade_timeout_s
    )
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
        grading=checked.detail,
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
) -> dict[str, Any]:
    """Run each arm over every task (``concurrency`` tasks at a time); results and summary.

    The arms run one after the other (all swarm runs, then all direct calls), so neither
    competes with the other for the device.
    """
    if options.concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, not {options.concurrency}")
    gate = asyncio.Semaphore(options.concurrency)
    results = {t.name: TaskResult(t.name) for t in tasks}
    runners = {"swarm": swarm_arm, "direct": direct_arm}
    arm_seconds: dict[str, float] = {}

    async def one(arm: Arm, task: EvalTask) -> None:
        async with gate:
            result = await runners[arm](task, context, options.grade_timeout_s)
        results[task.name].arms[arm] = result
        if progress is not None:
            progress(arm, task.name, result)

    for arm in options.arms:
        started = time.monotonic()
        await asyncio.gather(*(one(arm, task) for task in tasks))
        arm_seconds[arm] = round(time.monotonic() - started, 1)
    rows = [results[t.name] for t in tasks]
    return {
        "summary": summarize(rows, options.arms, arm_seconds),
        "tasks": [{"task": r.task, **{a: asdict(x) for a, x in r.arms.items()}} for r in rows],
        "options": asdict(options),
    }


def summarize(
    rows: Sequence[TaskResult], arms: Sequence[str], arm_seconds: dict[str, float]
) -> dict[str, Any]:
    """Solved share, first-try schema validity and wall time per arm."""
    summary: dict[str, Any] = {"tasks": len(rows)}
    for arm in arms:
        done = [r.arms[arm] for r in rows if arm in r.arms]
        calls = sum(a.calls for a in done)
        solved = sum(a.solved for a in done)
        summary[arm] = {
            "solved": solved,
            "solved_share": round(solved / len(done), 3) if done else None,
            "calls": calls,
            "first_try_valid_share": round(sum(a.first_try_valid for a in done) / calls, 3)
            if calls
            else None,
            "outcomes": dict(sorted(Counter(a.outcome for a in done).items())),
            "wall_s": arm_seconds.get(arm),
            "completion_tokens": sum(a.completion_tokens for a in done),
        }
    return summary


def check_sandbox() -> None:
    """Raise SandboxUnavailable now rather than after the first run, when grading cannot work."""
    result = run_tests({"test_probe.py": "def test_ok():\n    assert True\n"}, timeout_s=30)
    if test_counts(result.stdout) != (1, 0):
        raise SandboxUnavailable(f"the sandbox's test runner did not run: {result.stderr[-300:]}")
