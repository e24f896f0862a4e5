"""The swarm's nodes. Each reads only the bounded hand-overs it needs from the state."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path
from typing import Any

from langgraph.runtime import Runtime

from agents import auditor as auditor_agent
from agents import summarizer as summarizer_agent
from agents.auditor import AuditorKind
from agents.examples import entry_point_of, project_checks, statement_checks
from agents.lookups import available_tools, lookup_messages, lookup_plan_schema, run_lookups
from agents.prompts import clip
from agents.researcher import MAX_TASK_CHARS, researcher_messages
from agents.schemas import AuditReport, ResearchBrief, StageSummary
from graphs.coding import SOLUTION, attempt_text, project_files
from graphs.context import Context, context_of
from graphs.endpoints import HostedEndpointError
from graphs.llm import NodeFailedError, ask, endpoint_of, failure
from graphs.state import Attempt, AuditEntry, FinalReport, InputState, NodeMetrics, State
from tools.check_runner import EntryPoint
from tools.dispatch import ToolContext
from tools.evidence import Evidence, bandit_scan, performance_probe
from tools.project_rank import project_context
from tools.sandbox import SandboxUnavailable

_NOTES_CHARS = 1800
# Three short tool calls; the tools' own argument bounds (a SQL query may be 8000
# characters) would let a looping small model run for minutes.
_LOOKUP_TOKENS = 384
_PROBLEMS_CHARS = 1600


def validate_task(task: str) -> str:
    """The task, stripped; raise ValueError when it is empty or too long."""
    text = task.strip()
    if not text:
        raise ValueError("the task is empty")
    if len(text) > MAX_TASK_CHARS:
        raise ValueError(f"the task has {len(text)} characters; the limit is {MAX_TASK_CHARS}")
    return text


async def _look_up(state: State, ctx: Context, task: str) -> tuple[str, list[NodeMetrics]]:
    """The researcher's optional lookups in the run's workspace and database."""
    tools = available_tools(bool(state.workspace), bool(state.database))
    if not tools:
        return "", []
    messages = lookup_messages(tools, task, ctx.prompt_layout)
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


class ResearchFailedError(RuntimeError):
    """The researcher got no brief; ``metrics`` is what its calls cost, lookups included."""

    def __init__(self, message: str, metrics: list[NodeMetrics]) -> None:
        super().__init__(message)
        self.metrics = metrics


async def setup(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Record each role's model in the state, where the researcher's cache key reads it.

    A run whose context names no endpoint (Studio's default) gets the host's default here,
    before its nodes race for it: ``EDGESWARM_BASE_URL``, or the embedded gateway this
    process starts on first use (:func:`graphs.endpoints.with_default_endpoint`).
    """
    try:
        ctx = await endpoint_of(context_of(runtime), "setup")
    except HostedEndpointError as err:
        return failure(err)
    models = {spec.name: ctx.model_for(spec.name) for spec in ctx.roles}
    update: dict[str, Any] = {"models": models, "started_at": state.started_at or time.time()}
    if state.workspace or state.database:
        update |= await map_project(state, ctx)
    return update


async def map_project(state: State, ctx: Context) -> dict[str, Any]:
    """The project's snippets ranked against the task, for every candidate's prompt.

    A deterministic map (:mod:`tools.project_map`: no model call, bounded in files, bytes and
    time), so it is made before any agent starts; what it could not read becomes a note in
    the report, never a failure. With ``model_lookups`` on, the researcher's own lookups
    come after it, and the researcher runs before the coder.
    """
    try:
        task = validate_task(state.task)
    except ValueError:
        return {}  # the researcher fails the run with the reason
    found = await asyncio.to_thread(
        project_context,
        Path(state.workspace) if state.workspace else None,
        task,
        database=Path(state.database) if state.database else None,
        budget_chars=ctx.project_chars,
    )
    return {
        "project_context": found.text,
        "project_imports": found.imports,
        "project_symbols": found.symbols,
        "project_tables": list(found.tables),
        "looked_up": [f"map: {used}" for used in found.used],
        "project_notes": list(found.notes),
        "research_first": researches_first(state, ctx.model_lookups),
    }


def researches_first(inputs: InputState, model_lookups: bool) -> bool:
    """Whether the researcher's model lookups run before the coder.

    They do when the run has a workspace or a database to look in and ``model_lookups`` is on.
    """
    return bool(inputs.workspace or inputs.database) and model_lookups


def brief_in_parallel(state: InputState, research_first: bool | None = None) -> bool:
    """Whether the researcher's brief can be written beside the code, not before it.

    The coder and the test writer read the task verbatim (and the project map's snippets,
    which ``setup`` made); the brief only feeds them an entry point the statement does not
    name and the model's lookups' notes. A run with neither (no model lookups to wait for, the
    statement names its function or class) starts all three at once, and the brief leaves
    the critical path.
    """
    if research_first is None:  # as ``setup`` recorded it (a graph's input has no say)
        research_first = isinstance(state, State) and state.research_first
    if research_first:
        return False
    try:
        task = validate_task(state.task)
    except ValueError:
        return False
    return entry_point_of(task) is not None


async def researcher(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Look things up when the run gives a workspace or database, then write the brief.

    Beside the coder (:func:`brief_in_parallel`) it writes none unless
    ``Context.parallel_brief``: it reads the statement's entry point and checks, and the
    model is not asked.

    A failure raises (``ValueError`` for a bad task, :class:`ResearchFailedError`): the
    node's error handler (:func:`graphs.swarm.research_failed`) ends the run failed, and
    LangGraph's node cache, which keeps only what a node returns, never keeps a failure.
    """
    ctx = context_of(runtime)
    task = validate_task(state.task)
    brief: ResearchBrief | None = None
    notes = ""
    metrics: list[NodeMetrics] = []
    # Beside the code with nothing to look up, a brief would feed only the report's "task as
    # understood" (``Context.parallel_brief``): the model is not asked.
    if not brief_in_parallel(state) or ctx.parallel_brief:
        if ctx.model_lookups:
            notes, metrics = await _look_up(state, ctx, task)
        messages = researcher_messages(task, notes, ctx.prompt_layout)
        try:
            answer = await ask(ctx, "researcher", "researcher", ResearchBrief, messages)
        except NodeFailedError as err:
            raise ResearchFailedError(str(err), [*metrics, err.metrics]) from err
        brief = answer.value
        metrics = [*metrics, answer.metrics]
    entry = entry_point_of(task) or (_brief_entry(brief) if brief is not None else None)
    calls = [line.split(") ", 1)[0] + ")" for line in notes.splitlines() if ") " in line]
    return {
        "brief": brief,
        "research_notes": notes,
        "looked_up": [*state.looked_up, *(f"lookup: {call[:160]}" for call in calls)],
        "entry": entry,
        "checks": [*statement_checks(task, entry), *project_checks(entry, state.database)],
        "metrics": metrics,
    }


def _brief_entry(brief: ResearchBrief) -> EntryPoint | None:
    """The brief's entry point, when the statement names none itself."""
    name = brief.entry_point.strip()
    if not name.isidentifier() or brief.kind not in ("function", "class"):
        return None
    return EntryPoint(name, "class" if brief.kind == "class" else "function")


async def summarize_brief(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Prune the researcher's lookup notes into the coder's hand-over; the task stays verbatim.

    Only lookup results (file contents, query rows) can grow, so only they are summarized, by
    the summarizer model; a run without lookups makes no call. Without context pruning (a
    baseline) the raw notes are handed over.
    """
    ctx = context_of(runtime)
    if state.brief is None:
        return failure(RuntimeError("summarize_brief: no research brief to summarize"))
    if not state.research_notes:
        return {"coder_briefing": ""}
    if not ctx.context_pruning:
        return {"coder_briefing": state.research_notes}
    material = f"Task:\n{clip(state.task, 1500)}\nWhat the lookups found:\n{state.research_notes}"
    try:
        answer = await ask(
            ctx,
            "summarizer",
            "summarize_brief",
            StageSummary,
            summarizer_agent.summary_messages("the coder", material, ctx.prompt_layout),
        )
    except NodeFailedError as err:
        # The notes themselves, clipped, still help more than nothing.
        return {
            "coder_briefing": clip(state.research_notes, ctx.handover_chars),
            "metrics": [err.metrics],
        }
    return {
        "coder_briefing": summarizer_agent.handover(answer.value, ctx.handover_chars),
        "metrics": [answer.metrics],
    }


def audit_material(state: State, kind: AuditorKind, evidence: list[Evidence], limit: int) -> str:
    """The auditor's bounded hand-over: the checks' outcome and its tool's evidence."""
    tests = state.test_run
    status = "no checks ran" if tests is None else f"{tests.passed} passed, {tests.failed} failed"
    found = "\n".join(
        f"- [{'BLOCKING' if e.blocking else 'note'}] {e.tool}: {e.text}" for e in evidence
    )
    tool = auditor_agent.TOOL[kind]
    return clip(f"Checks: {status}\nWhat {tool} found:\n{found or '- nothing'}", limit)


async def gather_evidence(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Gather the auditors' evidence on the chosen code and bound their hand-over.

    bandit reads the code; the performance probe runs the passed checks on large inputs in
    the sandbox. Neither is a model: this is what the auditors' verdicts must rest on.
    """
    code = state.files.get(SOLUTION, "")
    if not code:
        return {"evidence": {"security": [], "performance": []}}
    best = state.chosen()
    passed = [v.ok for v in best.verdicts] if best and not best.gate else []
    try:
        security = await asyncio.to_thread(bandit_scan, code)
    except (RuntimeError, OSError) as err:
        security = [Evidence("bandit", f"could not run: {clip(str(err), 200)}", False)]
    performance: list[Evidence] = []
    if passed:
        try:
            project = await asyncio.to_thread(project_files, state)
            files = await asyncio.to_thread(project.for_code, code)
            performance = await asyncio.to_thread(
                performance_probe,
                code,
                list(state.checks),
                passed,
                state.entry,
                files,
                project.sandbox_config(),
            )
        except (SandboxUnavailable, ValueError) as err:
            performance = [Evidence("performance probe", f"could not run: {err}", False)]
    return {"evidence": {"security": security, "performance": performance}}


def _auditor(kind: AuditorKind) -> Any:
    async def audit(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = context_of(runtime)
        evidence = state.evidence.get(kind, [])
        messages = auditor_agent.auditor_messages(
            kind,
            state.files.get(SOLUTION, ""),
            audit_material(state, kind, evidence, ctx.handover_chars),
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
            # The evidence still decides; the run records that the auditor gave no verdict.
            report = AuditReport(verdict="approve", findings=[])
            return {"audits": {kind: report}, "metrics": [err.metrics]}
        return {"audits": {kind: answer.value}, "metrics": [answer.metrics]}

    audit.__name__ = f"{kind}_auditor"
    audit.__doc__ = f"The {kind} auditor's verdict on solution.py, given its tool's evidence."
    return audit


security_auditor = _auditor("security")
performance_auditor = _auditor("performance")


def blocking_evidence(state: State) -> list[str]:
    """The evidence that must be fixed before approval, as lines for the next revision."""
    return [
        f"- {kind}: {e.tool}: {e.text}"
        for kind, items in sorted(state.evidence.items())
        for e in items
        if e.blocking
    ]


def problems_of(state: State) -> str:
    """What still stands against the chosen code: failing checks and blocking evidence."""
    lines: list[str] = []
    tests = state.test_run
    if tests is not None and not tests.ok:
        lines.append(state.problems or f"- {tests.output[-400:]}")
    lines += blocking_evidence(state)
    return clip("\n".join(lines), _PROBLEMS_CHARS)


async def decide(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Revise when blocking evidence stands, within the revision limit; else finish.

    Failing checks were already revised in the loop through run_tests; an auditor's opinion
    without evidence is reported, never a reason to rewrite correct code.
    """
    ctx = context_of(runtime)
    evidence = blocking_evidence(state)
    if evidence and state.revision < ctx.max_revisions:
        update: dict[str, Any] = {
            "decision": "revise",
            "problems": clip("\n".join(evidence), _PROBLEMS_CHARS),
            "revision": state.revision + 1,
            "blocked": [] if state.best is None else [state.best],
        }
        if not ctx.context_pruning:
            code = state.files.get(SOLUTION, "")
            update["history"] = [attempt_text(state.revision + 1, code, "\n".join(evidence))]
        return update
    return {"decision": "finish", "problems": problems_of(state)}


def _outcome(state: State) -> tuple[str, str]:
    if state.status == "failed":
        return "failed", state.error or "an agent failed"
    tests = state.test_run
    if state.entry is None:
        return "unresolved", (
            "the task names no function or class to write, so nothing could be checked by "
            "running it; the code is shown unverified"
        )
    if tests is None or not state.files:
        return "unresolved", "no candidate solution could be run"
    if tests.passed == 0 and tests.ok:
        if not tests.failed:
            return "unresolved", "no check of the task could be run against the code"
        # Required are the task's own examples and the writer's checks most candidates pass:
        # none of either, so every check that ran is a writer's most candidates contradict.
        return "unresolved", (
            f"the task shows no example of its own, and the test writer's {tests.failed} "
            "check(s) fail on most candidates, so they may be wrong themselves: the code is "
            "unverified"
        )
    if not state.problems:
        return "approved", "the checks pass and no tool found a blocking problem"
    rounds = f"{state.revision} revision(s)"
    if not tests.ok:
        return "unresolved", f"checks still fail after {rounds}"
    return "unresolved", f"blocking evidence remains after {rounds} (the revision limit)"


_IMPORT_LINE = re.compile(r"^[ \t]*(?:from[ \t]+\S+[ \t]+)?import[ \t][^\n]*$", re.M)


def project_uses(code: str, looked_up: list[str]) -> list[str]:
    """What the final code names of the project snippets it was shown.

    A snippet (``map: pricing.py:round_cents``, ``map: shop.db:ord_ln``) is used when the
    code names its symbol or table as a word, or its file by path or, for a module, imports it
    and uses it (``pricing.round_cents``). Import lines alone use nothing: a stub candidate's
    answer begins by importing every snippet's names.
    """
    body = _IMPORT_LINE.sub("", code)
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", body))
    used: list[str] = []
    for item in looked_up:
        if not item.startswith("map: "):
            continue
        path, _, name = item.removeprefix("map: ").rpartition(":")
        module = path.removesuffix(".py").replace("/", ".") if path.endswith(".py") else ""
        whole_file = name == path.rpartition("/")[2]  # a config, data file or doc: by its path
        module_entry = bool(module) and (whole_file or name == "constants")  # not one symbol
        if (
            (name and not whole_file and name in words)
            or (whole_file and (path in code or name in code))
            or (module_entry and _module_used(code, body, words, module))
        ):
            used.append(item.removeprefix("map: "))
    return used


def _module_used(code: str, body: str, words: set[str], module: str) -> bool:
    """Whether ``code`` imports ``module`` and uses it.

    A name imported from it is used, or ``module.name`` follows ``import module``.
    """
    names = re.findall(
        rf"^[ \t]*from[ \t]+{re.escape(module)}[ \t]+import[ \t]+([^\n]*)$", code, re.M
    )
    imported = {word for line in names for word in re.findall(r"[A-Za-z_]\w*", line)} - {"as"}
    if imported & words:
        return True
    leaf = module.rpartition(".")[2]
    return bool(
        re.search(rf"^[ \t]*import[ \t]+{re.escape(module)}\b", code, re.M)
        and re.search(rf"\b{re.escape(leaf)}\.\w", body)
    )


async def finish(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Write the final report; the run is done unless an agent failed."""
    outcome, reason = _outcome(state)
    backed = {kind for kind, items in state.evidence.items() if any(e.blocking for e in items)}
    findings = [
        AuditEntry(
            auditor=kind,
            severity=f.severity,
            title=f.title,
            detail=f.detail,
            evidence=kind in backed,
        )
        for kind, report in sorted(state.audits.items())
        for f in report.findings
    ]
    best = state.chosen()
    verdicts = best.verdicts if best is not None and not best.gate else []
    checks = [
        f"{'PASS' if i < len(verdicts) and verdicts[i].ok else 'FAIL'} [{c.source}] {c.label()}"
        for i, c in enumerate(state.checks)
    ]
    report = FinalReport(
        outcome=outcome,  # type: ignore[arg-type]
        reason=reason,
        summary=state.brief.summary if state.brief else "",
        files=dict(state.files),
        tests=state.test_run,
        findings=findings,
        evidence=[e for _, items in sorted(state.evidence.items()) for e in items],
        candidates=len(state.candidates),
        attempts=[
            Attempt(
                revision=c.revision,
                greedy=c.greedy,
                prompt=c.prompt,
                chosen=c.id == state.best,
                gate=c.gate,
                checks_passed=[v.ok for v in c.verdicts],
                code=c.code,
                observed=list(c.observed),
                peers=list(c.peers),
            )
            for c in state.scored
        ],
        checks=checks,
        revisions=state.revision,
        looked_up=list(state.looked_up),
        uses=project_uses(state.files.get(SOLUTION, ""), state.looked_up),
        project_notes=list(state.project_notes),
        prompt_tokens=sum(m.prompt_tokens for m in state.metrics),
        completion_tokens=sum(m.completion_tokens for m in state.metrics),
    )
    status = "failed" if outcome == "failed" else "done"
    return {"status": status, "report": report}
