"""The swarm's nodes. Each reads only the bounded hand-overs it needs from the state."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage
from langgraph.runtime import Runtime

from agents import prompts
from agents.checks import checks_module
from agents.lookups import available_tools, lookup_plan_schema, run_lookups
from agents.prompts import clip, layout
from agents.researcher import MAX_TASK_CHARS, researcher_messages
from agents.schemas import AuditReport, CodeSubmission, ResearchBrief, StageSummary
from graphs.context import Context
from graphs.llm import NodeFailedError, ask
from graphs.state import AuditEntry, FinalReport, NodeMetrics, State, TestRun
from tools.dispatch import ToolContext
from tools.sandbox import SandboxUnavailable, run_tests, test_counts

SOLUTION, TESTS = "solution.py", "test_solution.py"
_OUTPUT_TAIL = 1200
_NOTES_CHARS = 1800
# Three short tool calls; the tools' own argument bounds (a SQL query may be 8000
# characters) would let a looping small model run for minutes.
_LOOKUP_TOKENS = 384
_PROBLEMS_CHARS = 1600
_BLOCKING = {"high", "critical"}


def validate_task(task: str) -> str:
    """The task, stripped; raise ValueError when it is empty or too long."""
    text = task.strip()
    if not text:
        raise ValueError("the task is empty")
    if len(text) > MAX_TASK_CHARS:
        raise ValueError(f"the task has {len(text)} characters; the limit is {MAX_TASK_CHARS}")
    return text


def _ctx(runtime: Runtime[Context]) -> Context:
    return runtime.context or Context()


def _failed(err: Exception) -> dict[str, Any]:
    """The update of a node that failed: the run ends failed, with what the calls cost."""
    update: dict[str, Any] = {"status": "failed", "error": str(err)}
    if isinstance(err, NodeFailedError):
        update["metrics"] = [err.metrics]
    return update


async def _look_up(state: State, ctx: Context, task: str) -> tuple[str, list[NodeMetrics]]:
    """The researcher's optional lookups in the run's workspace and database."""
    tools = available_tools(bool(state.workspace), bool(state.database))
    if not tools:
        return "", []
    messages = layout(
        prompts.LOOKUP_SYSTEM,
        prompts.LOOKUP_TASK.format(tools=", ".join(tools), task=task),
        ctx.prompt_layout,
    )
    try:
        answer = await ask(
            ctx,
            "researcher",
            "researcher_lookup",
            lookup_plan_schema(tools),
            messages,
            max_tokens=_LOOKUP_TOKENS,
        )
    except NodeFailedError as err:
        # Lookups only help the brief; without them the researcher still has the task.
        return f"(the lookups could not be planned: {clip(str(err), 300)})", [err.metrics]
    tool_context = ToolContext(
        workspace_root=Path(state.workspace) if state.workspace else None,
        database_path=Path(state.database) if state.database else None,
    )
    notes = await asyncio.to_thread(run_lookups, answer.value, tool_context)
    return clip(notes, _NOTES_CHARS), [answer.metrics]


async def researcher(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Look things up when the run gives a workspace or database, then write the brief."""
    ctx = _ctx(runtime)
    try:
        task = validate_task(state.task)
    except ValueError as err:
        return _failed(err)
    notes, metrics = await _look_up(state, ctx, task)
    messages = researcher_messages(task, notes, ctx.prompt_layout)
    try:
        answer = await ask(ctx, "researcher", "researcher", ResearchBrief, messages)
    except NodeFailedError as err:
        return {**_failed(err), "metrics": [*metrics, err.metrics]}
    return {"brief": answer.value, "research_notes": notes, "metrics": [*metrics, answer.metrics]}


def _summary_messages(ctx: Context, audience: str, material: str) -> list[BaseMessage]:
    return layout(
        prompts.SUMMARIZER_SYSTEM,
        prompts.SUMMARIZER_INPUT.format(audience=audience, material=material),
        ctx.prompt_layout,
    )


def _handover(summary: StageSummary, limit: int) -> str:
    points = "\n".join(f"- {point}" for point in summary.key_points)
    return clip(f"{summary.summary}\n{points}".strip(), limit)


def _brief_text(brief: ResearchBrief) -> str:
    cases = "\n".join(f"- {c.call} == {c.expected}  ({c.description})" for c in brief.test_cases)
    lines = [
        f"Summary: {brief.summary}",
        f"Write: {brief.kind} `{brief.entry_point}`",
        "Requirements:\n" + "\n".join(f"- {r}" for r in brief.requirements),
    ]
    if brief.constraints:
        lines.append("Constraints:\n" + "\n".join(f"- {c}" for c in brief.constraints))
    lines.append("Test cases:\n" + cases)
    return "\n".join(lines)


async def summarize_brief(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Condense the brief and research notes into the coder's hand-over.

    Without context pruning (a baseline) there is no LLM call: the raw material is handed over.
    """
    ctx = _ctx(runtime)
    if state.brief is None:
        return _failed(RuntimeError("summarize_brief: no research brief to summarize"))
    material = _brief_text(state.brief)
    if state.research_notes:
        material += "\nResearch notes:\n" + state.research_notes
    if not ctx.context_pruning:
        return {"coder_briefing": material}
    try:
        answer = await ask(
            ctx,
            "summarizer",
            "summarize_brief",
            StageSummary,
            _summary_messages(ctx, "the coder", material),
        )
    except NodeFailedError as err:
        return _failed(err)
    # The structured brief's facts travel verbatim; the summary adds the gist on top.
    handover = clip(
        _handover(answer.value, ctx.handover_chars // 2) + "\n" + material, ctx.handover_chars
    )
    return {"coder_briefing": handover, "metrics": [answer.metrics]}


def _coder_messages(state: State, ctx: Context) -> list[BaseMessage]:
    revision = ""
    if state.revision and state.history and not ctx.context_pruning:
        revision = prompts.CODER_HISTORY.format(
            number=state.revision, history="\n".join(state.history)
        )
    elif state.revision and state.files:
        revision = prompts.CODER_REVISION.format(
            number=state.revision, code=state.files.get(SOLUTION, ""), problems=state.problems
        )
    return layout(
        prompts.CODER_SYSTEM,
        prompts.CODER_TASK.format(brief=state.coder_briefing, revision=revision),
        ctx.prompt_layout,
    )


async def coder(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Write (or revise) solution.py and its tests."""
    ctx = _ctx(runtime)
    try:
        answer = await ask(
            ctx,
            "coder",
            "coder",
            CodeSubmission,
            _coder_messages(state, ctx),
            revision=state.revision,
        )
    except NodeFailedError as err:
        return _failed(err)
    files = {SOLUTION: answer.value.code, TESTS: checks_module(answer.value.checks)}
    return {"files": files, "code_notes": answer.value.notes, "metrics": [answer.metrics]}


async def run_code_tests(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Run the coder's tests against its code in the sandbox."""
    ctx = _ctx(runtime)
    try:
        result = await asyncio.to_thread(run_tests, state.files, timeout_s=ctx.sandbox_timeout_s)
    except (SandboxUnavailable, ValueError) as err:
        return _failed(RuntimeError(f"run_tests: {err}"))
    passed, failed = test_counts(result.stdout)
    output = (result.stdout + "\n" + result.stderr).strip()
    test_run = TestRun(
        ok=result.exit_code == 0 and failed == 0 and passed > 0,
        passed=passed,
        failed=failed,
        exit_code=result.exit_code,
        timed_out=result.timed_out,
        output=output[-_OUTPUT_TAIL:],
        duration_s=round(result.duration_s, 3),
    )
    return {"test_run": test_run}


def _raw_audit_material(state: State, status: str) -> str:
    """The unpruned auditors' hand-over: the brief, the coder's note and the test output."""
    task = _brief_text(state.brief) if state.brief else f"Task: {state.task}"
    output = state.test_run.output if state.test_run else ""
    return f"{task}\nCoder's note: {state.code_notes}\nTests: {status}\nTest output:\n{output}"


async def summarize_code(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Condense the brief, the coder's note and the test run into the auditors' hand-over.

    Without context pruning (a baseline) there is no LLM call: the raw material is handed over.
    """
    ctx = _ctx(runtime)
    tests = state.test_run
    status = "no test run" if tests is None else f"{tests.passed} passed, {tests.failed} failed"
    if not ctx.context_pruning:
        return {"audit_briefing": _raw_audit_material(state, status)}
    material = (
        f"Task: {state.brief.summary if state.brief else state.task[:300]}\n"
        f"Coder's note: {state.code_notes}\nTests: {status}"
    )
    try:
        answer = await ask(
            ctx,
            "summarizer",
            "summarize_code",
            StageSummary,
            _summary_messages(ctx, "the security and performance auditors", material),
            revision=state.revision,
        )
    except NodeFailedError as err:
        return _failed(err)
    return {
        "audit_briefing": _handover(answer.value, ctx.handover_chars),
        "metrics": [answer.metrics],
    }


def _auditor(kind: str) -> Any:
    async def audit(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = _ctx(runtime)
        messages = layout(
            prompts.AUDITOR_SYSTEM[kind],
            prompts.AUDITOR_INPUT.format(
                briefing=state.audit_briefing, code=state.files.get(SOLUTION, "")
            ),
            ctx.prompt_layout,
        )
        try:
            answer = await ask(
                ctx,
                "auditor",
                f"{kind}_auditor",
                AuditReport,
                messages,
                revision=state.revision,
            )
        except NodeFailedError as err:
            return _failed(err)
        return {"audits": {kind: answer.value}, "metrics": [answer.metrics]}

    audit.__name__ = f"{kind}_auditor"
    audit.__doc__ = f"The {kind} auditor's verdict and findings on solution.py."
    return audit


security_auditor = _auditor("security")
performance_auditor = _auditor("performance")


_FAILURE_MARKS = ("FAIL ", "ERROR ", "AssertionError", "Error:", "Exception:")


def failure_lines(output: str, limit: int = 12) -> str:
    """The lines of a test run that say what failed (its tail when none does)."""
    picked = [
        line.strip()
        for line in output.splitlines()
        if line.startswith(_FAILURE_MARKS) or "Error: " in line
    ]
    return "\n".join(picked[:limit]) if picked else output[-700:]


def problems_of(state: State, *, bounded: bool = True) -> str:
    """What the next revision must fix: failing tests and blocking findings.

    Clipped to a fixed size unless ``bounded`` is False (the unpruned baseline).
    """
    lines: list[str] = []
    tests = state.test_run
    if tests is not None and not tests.ok:
        lines.append(
            f"Tests: {tests.passed} passed, {tests.failed} failed"
            f"{' (timed out)' if tests.timed_out else ''}:\n{failure_lines(tests.output)}"
        )
    for kind, report in sorted(state.audits.items()):
        if report.verdict != "revise":
            continue
        for finding in report.findings:
            if finding.severity in _BLOCKING:
                lines.append(f"{kind} [{finding.severity}] {finding.title}: {finding.detail}")
    text = "\n".join(lines)
    return clip(text, _PROBLEMS_CHARS) if bounded else text


async def decide(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Revise when tests fail or a blocking finding stands, within the revision limit.

    Without context pruning (a baseline) a revision also appends the attempt just judged,
    its code and its problems, to the history the revising coder gets in full.
    """
    ctx = _ctx(runtime)
    problems = problems_of(state, bounded=ctx.context_pruning)
    if problems and state.revision < ctx.max_revisions:
        update: dict[str, Any] = {
            "decision": "revise",
            "problems": problems,
            "revision": state.revision + 1,
        }
        if not ctx.context_pruning:
            attempt = prompts.CODER_ATTEMPT.format(
                number=state.revision + 1, code=state.files.get(SOLUTION, ""), problems=problems
            )
            update["history"] = [attempt]
        return update
    return {"decision": "finish", "problems": problems}


def _outcome(state: State) -> tuple[str, str]:
    if state.status == "failed":
        return "failed", state.error or "an agent failed"
    if not state.problems:
        return "approved", "the tests pass and no blocking finding stands"
    rounds = f"{state.revision} revision(s)"
    tests = state.test_run
    if tests is not None and not tests.ok:
        return "unresolved", f"tests still fail after {rounds} (the revision limit)"
    return "unresolved", f"blocking audit findings remain after {rounds} (the revision limit)"


async def finish(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Write the final report; the run is done unless an agent failed."""
    outcome, reason = _outcome(state)
    findings = [
        AuditEntry(auditor=kind, severity=f.severity, title=f.title, detail=f.detail)
        for kind, report in sorted(state.audits.items())
        for f in report.findings
    ]
    report = FinalReport(
        outcome=outcome,  # type: ignore[arg-type]
        reason=reason,
        summary=state.brief.summary if state.brief else "",
        files=dict(state.files),
        tests=state.test_run,
        findings=findings,
        revisions=state.revision,
        prompt_tokens=sum(m.prompt_tokens for m in state.metrics),
        completion_tokens=sum(m.completion_tokens for m in state.metrics),
    )
    status = "failed" if outcome == "failed" else "done"
    return {"status": status, "report": report}
