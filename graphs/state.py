"""The shared, typed state of the swarm graph."""

from __future__ import annotations

import operator
from dataclasses import dataclass, field, replace
from typing import Annotated, Literal

from agents.coder import CoderPrompt
from agents.schemas import AuditReport, ResearchBrief
from tools.check_runner import Check, EntryPoint, Verdict
from tools.evidence import Evidence

RunStatus = Literal["running", "done", "failed"]
Outcome = Literal["approved", "unresolved", "failed"]
Decision = Literal["revise", "finish"]


@dataclass(kw_only=True)
class NodeMetrics:
    """What one node's LLM call cost."""

    node: str
    """Graph node that made the call."""
    model: str
    """Model that answered."""
    prompt_tokens: int
    """Tokens sent, over every attempt."""
    completion_tokens: int
    """Tokens received, over every attempt (cut-off and invalid answers included)."""
    seconds: float
    """Wall time of the node's call, swap wait included."""
    swap_wait_s: float = 0.0
    """Seconds spent waiting for the model to become resident."""
    attempts: int = 1
    """Attempts made (retries with a larger budget, fallback model)."""
    revision: int = 0
    """Revision round the call belonged to."""
    ok: bool = True
    """False when no attempt gave a usable answer (the node failed or fell back)."""
    started: float = 0.0
    """When the call began (epoch seconds; 0: not recorded): calls in parallel overlap."""
    cut: str = ""
    """Why the call was cut before its answer ended ("" when it was not): ``stalled`` (no
    token and no progress on its model for the idle limit), ``looping`` (a sampled candidate
    repeating itself after the greedy one was done), ``budget`` (the run's budget ran out),
    ``straggler`` (a sampled candidate cut at its grace where its stream could not be read)."""
    streaming: bool = False
    """A cut call had streamed tokens when it was cut."""
    kept: bool = False
    """What a cut call had streamed was kept (it held a whole code block)."""


@dataclass(kw_only=True)
class TestRun:
    """The sandboxed run of the coder's tests."""

    __test__ = False  # not a pytest test class

    ok: bool
    """True when every required check passed (:func:`agents.selection.required`: the
    statement's examples and the writer's checks most candidates pass); ``failed`` may still
    count writer checks that most candidates contradict."""
    passed: int
    """Tests that passed."""
    failed: int
    """Tests that failed or errored."""
    exit_code: int
    """Exit status of the test runner."""
    timed_out: bool
    """The run hit its wall-clock limit."""
    output: str
    """The end of the runner's output (bounded)."""
    duration_s: float
    """Wall time of the sandboxed run."""


@dataclass(kw_only=True)
class Candidate:
    """One solution.py the coder wrote, and what running it showed."""

    code: str
    """The module, as written."""
    revision: int
    """The round it was written in (0: the first candidates)."""
    greedy: bool
    """Decoded at temperature 0 (else sampled with ``seed``)."""
    seed: int
    gate: str = ""
    """Why it could not be run as a solution ("" when it passed the gate)."""
    verdicts: list[Verdict] = field(default_factory=list)
    """Its verdict on each of the run's checks, in their order."""
    prompt: CoderPrompt = "system"
    """How it was asked (:data:`agents.coder.CoderPrompt`)."""
    observed: list[str] = field(default_factory=list)
    """What it did on each probe (:mod:`agents.probes`); empty when they gave nothing."""
    peers: list[bool] = field(default_factory=list)
    """Whether it passed each assert the first round's candidates wrote
    (:mod:`agents.peer_tests`); empty when there were none or they did not run."""
    id: str = ""
    """Its key in the run (``c0``, ``c1``...: the order it was written in); ``scored``,
    ``best`` and ``blocked`` name candidates by it."""


@dataclass(kw_only=True)
class AuditEntry:
    """One finding, with the auditor that made it (for the final report)."""

    auditor: str
    severity: str
    title: str
    detail: str
    evidence: bool = False
    """Whether a tool's evidence backs the auditor's verdict (only then may it block)."""


@dataclass(kw_only=True)
class Attempt:
    """One candidate as the final report shows it."""

    revision: int
    greedy: bool
    prompt: CoderPrompt
    """How it was asked (:data:`agents.coder.CoderPrompt`)."""
    chosen: bool
    gate: str
    """Why it could not run as a solution ("" when it could)."""
    checks_passed: list[bool]
    """Its verdict on each of the run's checks, in the report's ``checks`` order."""
    code: str
    observed: list[str] = field(default_factory=list)
    """What it did on each probe (value or exception type): the tie-break's evidence."""
    peers: list[bool] = field(default_factory=list)
    """Whether it passed each of the candidates' own asserts (the first tie-break)."""


@dataclass(kw_only=True)
class FinalReport:
    """What a run produced, for people and programs."""

    outcome: Outcome
    """approved, unresolved (revision limit reached with problems left) or failed."""
    reason: str
    """One sentence on why the run ended this way."""
    summary: str
    """The task as the researcher understood it; empty when it wrote no brief (beside the
    code, without ``Context.parallel_brief``)."""
    files: dict[str, str]
    """Produced files by name."""
    tests: TestRun | None
    """The last test run."""
    findings: list[AuditEntry]
    """The last audit's findings."""
    evidence: list[Evidence] = field(default_factory=list)
    """What the auditors' tools established about the final code."""
    candidates: int = 0
    """Candidate solutions written over the run."""
    attempts: list[Attempt] = field(default_factory=list)
    """Every candidate with its checks' outcome: why the chosen one was chosen."""
    checks: list[str] = field(default_factory=list)
    """The checks the candidates were run against, each with its source and whether the
    final code passed it."""
    revisions: int
    """Revision rounds done."""
    looked_up: list[str] = field(default_factory=list)
    """What the researcher looked up in the project: each snippet shown, each tool call."""
    uses: list[str] = field(default_factory=list)
    """Of what was looked up, what the final code names (a helper, a file, a table, a
    column)."""
    project_notes: list[str] = field(default_factory=list)
    """What could not be read in the project, and why."""
    prompt_tokens: int
    """Prompt tokens over the whole run."""
    completion_tokens: int
    """Completion tokens over the whole run."""


HISTORY_ATTEMPTS = 8
"""Earlier attempts the unpruned history keeps (a sanity cap on the baseline's growth)."""


def append_history(left: list[str], right: list[str]) -> list[str]:
    """Reducer of the unpruned history: append, keeping the last :data:`HISTORY_ATTEMPTS`."""
    return [*left, *right][-HISTORY_ATTEMPTS:]


def merge_audits(
    left: dict[str, AuditReport], right: dict[str, AuditReport]
) -> dict[str, AuditReport]:
    """Reducer for the parallel auditors: each writes its own key; a new round overwrites."""
    return {**left, **right}


def merge_evidence(
    left: dict[str, list[Evidence]], right: dict[str, list[Evidence]]
) -> dict[str, list[Evidence]]:
    """Reducer for the parallel auditors' evidence: each writes its own key."""
    return {**left, **right}


def merge_status(left: RunStatus, right: RunStatus) -> RunStatus:
    """Reducer for the status: ``failed`` stays, so two branches may fail in one step."""
    return left if left == "failed" else right


def merge_error(left: str | None, right: str | None) -> str | None:
    """Reducer for the failure reason: a second branch's reason is added to the first."""
    if left and right and right not in left:
        return f"{left}; {right}"
    return right or left


@dataclass(kw_only=True)
class InputState:
    """What a caller gives the graph."""

    task: str
    """The programming task, in plain language."""
    workspace: str | None = None
    """A directory the researcher may search and read (optional)."""
    database: str | None = None
    """A SQLite file the researcher may query read-only (optional)."""


@dataclass(kw_only=True)
class OutputState:
    """What a run returns."""

    status: Annotated[RunStatus, merge_status] = "running"
    """running, done, or failed (an agent could not answer; see error)."""
    report: FinalReport | None = None
    """The final report, once the run ended."""
    error: Annotated[str | None, merge_error] = None
    """Why the run failed, when it did."""
    metrics: Annotated[list[NodeMetrics], operator.add] = field(default_factory=list)
    """Per-call cost records; parallel branches append."""


@dataclass(kw_only=True)
class State(InputState, OutputState):
    """The whole state shared by the nodes."""

    started_at: float = 0.0
    """When the run began (epoch seconds; ``setup`` sets it): its budget counts from here."""
    models: dict[str, str] = field(default_factory=dict)
    """Each role's model for this run (``setup`` records them from the context): the
    researcher's node-cache key reads its model here, as LangGraph's key sees only the state."""
    brief: ResearchBrief | None = None
    """The researcher's structured brief."""
    entry: EntryPoint | None = None
    """The function or class the task asks for (read from the statement, else the brief)."""
    checks: list[Check] = field(default_factory=list)
    """The checks every candidate runs: the statement's examples, then the test writer's."""
    written_checks: list[Check] = field(default_factory=list)
    """The test writer's checks, as written; ``run_tests`` merges them into ``checks``."""
    candidates: Annotated[list[Candidate], operator.add] = field(default_factory=list)
    """Every candidate written so far, all rounds, as written (each with its ``id``)."""
    scored: list[Candidate] = field(default_factory=list)
    """The candidates run_tests has run, with their verdicts (a candidate not in it by its
    ``id`` is new)."""
    best: str | None = None
    """The id of the best candidate so far."""
    blocked: Annotated[list[str], operator.add] = field(default_factory=list)
    """Ids of candidates a tool found a blocking problem in: never chosen again over one
    without."""
    evidence: Annotated[dict[str, list[Evidence]], merge_evidence] = field(default_factory=dict)
    """Each auditor's tool evidence on the latest code."""
    research_notes: str = ""
    """What the researcher's tool lookups found (bounded)."""
    project_context: str = ""
    """The project's verbatim snippets ranked against the task (:mod:`tools.project_map`,
    bounded by ``Context.project_chars``): every candidate's prompt opens with them."""
    project_imports: str = ""
    """The import lines of the project snippets' Python names: a stub candidate's answer
    begins with them (:func:`agents.coder.stub_messages`)."""
    project_symbols: dict[str, str] = field(default_factory=dict)
    """Every name the project's Python defines, to the import that brings it: a candidate
    that uses one without importing it gets the import (:mod:`agents.repair`)."""
    project_tables: list[str] = field(default_factory=list)
    """Every table and view of the project's database: a candidate that creates one again has
    that statement dropped (:func:`agents.repair.without_existing_creates`)."""
    looked_up: list[str] = field(default_factory=list)
    """What the researcher looked up: each snippet shown (``path:name``), each tool call."""
    project_notes: list[str] = field(default_factory=list)
    """What the project map could not read, and why (skipped files, a corrupt database)."""
    research_first: bool = False
    """The researcher's lookups run before the coder (a workspace or database, and
    ``Context.model_lookups``); else its brief is written beside the code."""
    coder_briefing: str = ""
    """The summarizer's hand-over to the coder (bounded)."""
    files: dict[str, str] = field(default_factory=dict)
    """The coder's latest files: solution.py and test_solution.py."""
    test_run: TestRun | None = None
    """The latest sandboxed test run."""
    audits: Annotated[dict[str, AuditReport], merge_audits] = field(default_factory=dict)
    """The latest report of each auditor."""
    revision: int = 0
    """Revision rounds done so far."""
    decision: Decision = "finish"
    """What the decide node chose."""
    problems: str = ""
    """The problems the next revision must fix (bounded unless context_pruning is off)."""
    history: Annotated[list[str], append_history] = field(default_factory=list)
    """Only with context_pruning off (a baseline): each earlier solution.py with the problems
    found in it, oldest first, for the revising coder. Stays empty with pruning on."""

    def __post_init__(self) -> None:
        """Key candidates of a run checkpointed when they were matched by position.

        Such a run's candidates have no ``id``, and ``best`` and ``blocked`` are positions
        in ``scored`` (which then listed the first ``len(scored)`` candidates in order): each
        gets the id of its position, so a resumed run reads as one keyed from the start.
        """
        old: list[object] = [self.best, *self.blocked]
        keyed = all(c.id for c in (*self.candidates, *self.scored))
        if keyed and not any(isinstance(b, int) for b in old):
            return
        self.candidates = [_keyed(c, i) for i, c in enumerate(self.candidates)]
        self.scored = [_keyed(c, i) for i, c in enumerate(self.scored)]
        best, *blocked = [f"c{b}" if isinstance(b, int) else b for b in old]
        self.best = None if best is None else str(best)
        self.blocked = [str(b) for b in blocked]

    def chosen(self) -> Candidate | None:
        """The best candidate so far (None before any was scored)."""
        return next((c for c in self.scored if c.id == self.best), None)


def _keyed(candidate: Candidate, position: int) -> Candidate:
    return candidate if candidate.id else replace(candidate, id=f"c{position}")
