"""The nodes that write and choose the code: coder, test writer and the checks' run.

The coder writes several candidates at once (one greedy, the rest sampled with distinct
seeds; vLLM batches them), the test writer writes checks from the task alone, and
``run_tests`` runs every new candidate against every check in the sandbox and keeps the best
candidate so far (:mod:`agents.selection`). A revision is a new round of candidates written
from the best one and the checks it failed, with what each call returned; a search round
(no supported failure, but candidates that differ) is fresh samples only, and runs only with
``Context.search_rounds``.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable, Collection, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, TypeVar

from langchain_core.messages import AIMessage, BaseMessage
from langgraph.runtime import Runtime

from agents import coder as coder_agent
from agents import test_writer as writer_agent
from agents.checks import checks_module
from agents.coder import CodeDraft, CodeEnd, CoderPrompt, looping, module_end, statement_end
from agents.examples import entry_point_of
from agents.peer_tests import peer_checks
from agents.probes import MAX_PROBES, file_probes, observation, probes
from agents.repair import (
    add_missing_imports,
    under_entry_name,
    without_echo,
    without_existing_creates,
)
from agents.selection import (
    crashed_only,
    disagree,
    project_calls,
    rank,
    required,
    support,
    supported_failures,
)
from agents.stream import StreamSink
from graphs.context import Context, context_of
from graphs.llm import Answer, NodeFailedError, ask, ask_code, candidate_end, failure
from graphs.state import Candidate, NodeMetrics, State, TestRun
from runtime.logs import get_logger
from tools.check_runner import CandidateRun, Check, EntryPoint, Verdict, gate, run_checks
from tools.perturb import COPIES, altered, probe_path
from tools.project_files import ProjectFiles
from tools.sandbox import SandboxConfig, SandboxUnavailable

SOLUTION, TESTS = "solution.py", "test_solution.py"
_OUTPUT_CHARS = 1200
_SEED_STRIDE = 1000
_log = get_logger("graph")
_Answer = TypeVar("_Answer")


def plan(
    ctx: Context, revision: int, count: int, repair: bool = True, project: bool = False
) -> list[tuple[float, int, CoderPrompt]]:
    """Each candidate's (temperature, seed, prompt) for a round of ``count``.

    A first round opens with the greedy answer to the plain prompt, asked as a user asks (no
    grammar: what one plain call of the model writes, stopped once its first code block
    closes; it wins ties), then the greedy answer to the coder's own prompt, then samples at
    ``sample_temperature`` with distinct seeds, of the plain prompt and of the stub prompt in
    turn (at a low temperature each is as often right as the greedy answer, so the behaviour
    most of them share is more often the right one; the two prompts are right on different
    tasks: :data:`agents.coder.CoderPrompt`). A revision round opens with the greedy answer
    to the coder's prompt with the failures when ``Context.revision_repair`` is on (off by
    default), then fresh samples at new seeds: the plain prompt at ``wide_temperature``, the
    stub prompt, the plain prompt, and so on: more search, and wider, not more repair (a
    small model's repairs of its own code rarely fix the logic; over 19 make evals a repair
    was never the only right candidate, while fresh samples were, 3 times a run). Without
    ``repair`` (a search round: no failure any evidence supports, so nothing to repair from)
    every candidate is a fresh sample.

    In a ``project`` (a run whose prompts carry the project's snippets), a first round's
    third candidate is the stub prompt's greedy answer: begun on the project's imports and
    the entry's signature, it calls the helpers the plain prompt copies back
    (:func:`agents.coder.stub_messages`).
    """
    seeds = [ctx.seed + _SEED_STRIDE * revision + i for i in range(count)]
    greedy = ctx.temperature_for("coder")  # 0 unless the run sets coder_temperature
    if revision:
        kinds: tuple[tuple[float, CoderPrompt], ...] = (
            (ctx.wide_temperature, "plain"),
            (ctx.sample_temperature, "stub"),
            (ctx.sample_temperature, "plain"),
        )
        again: list[tuple[float, int, CoderPrompt]] = (
            [(greedy, seeds[0], "system")] if repair and ctx.revision_repair else []
        )
        fresh = seeds[len(again) :]
        return again + [(kinds[i % 3][0], seed, kinds[i % 3][1]) for i, seed in enumerate(fresh)]
    rounds: list[tuple[float, int, CoderPrompt]] = [(greedy, ctx.seed, "plain")]
    if count > 1:
        rounds.append((greedy, ctx.seed, "system"))
    if count > 2 and project:
        rounds.append((greedy, ctx.seed, "stub"))
    kind: tuple[CoderPrompt, ...] = ("plain", "stub")
    return rounds + [
        (ctx.sample_temperature, seed, kind[i % 2]) for i, seed in enumerate(seeds[len(rounds) :])
    ]


def round_prompts(
    state: State, ctx: Context, previous: str, failures: list[str]
) -> dict[CoderPrompt, list[BaseMessage]]:
    """Each prompt a round asks with (:data:`agents.coder.CoderPrompt`).

    No stub without an entry point to begin.
    """
    task, entry = state.task.strip(), entry_of(state)
    notes = state.coder_briefing if state.research_notes else ""
    project = state.project_context  # verbatim, to every candidate: the facts of the project
    messages: dict[CoderPrompt, list[BaseMessage]] = {
        "system": coder_agent.coder_messages(
            task,
            entry,
            notes=notes,
            project=project,
            previous=previous,
            failures=failures,
            history=[] if ctx.context_pruning else state.history,
            order=ctx.prompt_layout,
        ),
        # one plain call of the model (the eval's plain arm): the task, no notes; in a
        # project, after the project's snippets, as a user pastes files and then asks
        "plain": coder_agent.plain_messages(task, entry, project=project),
    }
    stub = coder_agent.stub_messages(task, entry, project, state.project_imports)
    if stub is not None:
        messages["stub"] = stub
    return messages


async def _candidates(
    state: State, ctx: Context, count: int, previous: str, failures: list[str]
) -> tuple[list[Candidate], list[NodeMetrics], list[str]]:
    messages = round_prompts(state, ctx, previous, failures)
    rounds = [
        (temp, seed, prompt if prompt in messages else "plain")
        for temp, seed, prompt in plan(
            ctx, state.revision, count, repair=bool(failures), project=bool(state.project_context)
        )
    ]

    sinks = [StreamSink() for _ in rounds]
    tails = RoundTails(len(rounds))
    greedy = ctx.temperature_for("coder")
    allowed = ctx.revision_docstrings if state.revision else ctx.sample_docstrings
    asked = asks_for_docstrings(state.task)

    def candidate(
        temp: float,
        seed: int,
        prompt: CoderPrompt,
        whole: bool,
        sink: StreamSink | None = None,
        ends_at: CodeEnd | None = None,
    ) -> Coroutine[Any, Any, Answer[CodeDraft]]:
        return ask_code(
            ctx,
            messages[prompt],
            revision=state.revision,
            sampling=(temp, seed),
            greedy=whole,
            plain=prompt != "system",
            sink=sink,
            ends_at=ends_at,
            # the first round's greedy answers write theirs (the plain call's own among them)
            docstrings=asked or allowed or (not state.revision and temp == greedy),
        )

    # One attempt each while others stand in: a greedy answer that loops to its budget would
    # otherwise get a larger budget, then the fallback model (a 135M model that writes no
    # right code), keeping the whole round waiting up to three time-outs (measured: 360 and
    # 530 s on two dev tasks). The whole policy is for a lone candidate, or when all failed.
    lone = len(rounds) == 1
    calls = [
        tails.tracked(
            index,
            candidate(*one, lone, sink, tails.ending(index, candidate_end(state.revision))),
        )
        for index, (one, sink) in enumerate(zip(rounds, sinks, strict=True))
    ]
    started = time.time()
    cuts: dict[int, str] = {}
    budget = ctx.budget_left(state.started_at)
    answers = await _without_stragglers(calls, ctx.straggler_factor, budget, cuts, sinks)
    retry = ctx.budget_left(state.started_at) != 0.0  # a spent budget writes nothing more
    if retry and not lone and not any(isinstance(answer, Answer) for answer in answers):
        try:
            retried: Answer[CodeDraft] | BaseException = await candidate(*rounds[0], True)
        except NodeFailedError as err:
            retried = err
        rounds, answers = [*rounds, rounds[0]], [*answers, retried]
        sinks.append(StreamSink())
    return _collected(ctx, state, started, rounds, answers, sinks, messages, cuts)


def asks_for_docstrings(task: str) -> bool:
    """Whether the task asks for a docstring (then the candidates may write one)."""
    return re.search(r"\bdoc[ -]?strings?\b", task, re.IGNORECASE) is not None


class RoundTails:
    """Ends a round's self-checks once no candidate of the round is writing code any more.

    A first round's answers may write on after their module into self-checks, whose asserts
    test every candidate (:mod:`agents.peer_tests`, :func:`graphs.llm.candidate_end`). They
    are worth writing while the round waits anyway for candidates still writing their code;
    once none is, the round would wait for the self-checks alone: with the greedy answers'
    written whole (5835dd8), the greedy plain answer was most often a round's longest call and
    make eval's median task took 58.5 s, 48.8 s with no self-checks at all. So an answer in its
    self-checks ends then, keeping what it wrote of them as far as it is whole Python
    (:func:`agents.coder.statement_end`). Measured on the 87 context-free tasks at concurrency
    8 (2026-12-07): with the greedy answers' self-checks written whole, 25 tasks had peer
    asserts (124); with them written so, 4 (7); with every first-round answer's written so,
    10 (22), for 1.5% more tokens than the second.
    """

    def __init__(self, size: int) -> None:
        self._writing = set(range(size))

    def done(self, index: int) -> None:
        """Candidate ``index`` writes no more code (answered, failed, cut, or module done)."""
        self._writing.discard(index)

    def ending(self, index: int, base: CodeEnd) -> CodeEnd:
        """Candidate ``index``'s ending: ``base``, or where its self-checks last parse.

        The latter once its module is finished and no candidate writes code any more.
        """
        if base is module_end:
            return base

        def end(text: str, begun: str) -> int | None:
            found = base(text, begun)
            if found is not None or module_end(text, begun) is None:
                return found
            self.done(index)
            return None if self._writing else statement_end(text, begun)

        return end

    async def tracked(self, index: int, call: Awaitable[_Answer]) -> _Answer:
        """``call``'s answer; candidate ``index`` is :meth:`done` however it ends."""
        try:
            return await call
        finally:
            self.done(index)


def _collected(
    ctx: Context,
    state: State,
    started: float,
    rounds: list[tuple[float, int, CoderPrompt]],
    answers: list[Answer[CodeDraft] | BaseException | None],
    sinks: list[StreamSink],
    messages: Mapping[CoderPrompt, list[BaseMessage]],
    cuts: dict[int, str],
) -> tuple[list[Candidate], list[NodeMetrics], list[str]]:
    """The round's candidates, the calls' records and what failed.

    A straggler's code is kept when what it streamed holds a whole block.
    """
    made: list[Candidate] = []
    metrics: list[NodeMetrics] = []
    errors: list[str] = []
    for index, ((temp, seed, prompt), answer, sink) in enumerate(
        zip(rounds, answers, sinks, strict=True)
    ):
        if answer is None:
            why = cuts.get(index, "straggler")
            code = coder_agent.partial_code(sink.text, _begun(messages[prompt]))
            metrics.append(_cut(ctx, state, started, sink, why, kept=code is not None))
            if code is None:
                errors.append(f"candidate (seed {seed}) cut ({_CUT_WHY[why]}), no whole block")
                continue
        elif isinstance(answer, NodeFailedError):
            metrics.append(answer.metrics)
            errors.append(str(answer))
            continue
        elif isinstance(answer, BaseException):
            raise answer
        else:
            code = answer.value.code
            metrics.append(answer.metrics)
        made.append(
            Candidate(
                code=_repaired(code, state, messages[prompt]),
                revision=state.revision,
                greedy=temp == 0.0,
                seed=seed,
                prompt=prompt,
                id=f"c{len(state.candidates) + len(made)}",
            )
        )
    return made, metrics, errors


def _repaired(code: str, state: State, messages: list[BaseMessage]) -> str:
    """``code`` without the prompt lines it copied, and with the imports it forgot.

    :func:`agents.repair.without_echo` (only for code that does not parse), then
    :func:`agents.repair.without_existing_creates` (a view or table of the database made
    again), then :func:`agents.repair.under_entry_name` (the one function written under
    another name), then :func:`agents.repair.add_missing_imports`: the project's names first,
    then the standard library's.
    """
    prompt = "\n".join(str(message.content) for message in messages)
    entry = entry_of(state)
    unechoed = without_echo(code, prompt, entry)
    if unechoed is not None:
        _log.info("echo_dropped", lines=code.count("\n") - unechoed.count("\n"))
    uncreated, names = without_existing_creates(unechoed or code, state.project_tables)
    if names:
        _log.info("create_dropped", names=names)
    named, old = under_entry_name(uncreated, entry)
    if old is not None:
        _log.info("entry_renamed", old=old)
    fixed, added = add_missing_imports(named, state.project_symbols)
    if added:
        _log.info("imports_added", imports=added)
    return fixed


def _begun(messages: list[BaseMessage]) -> str:
    """The part of the answer a prompt writes for the model (a stub's opened block)."""
    last = messages[-1] if messages else None
    return last.content if isinstance(last, AIMessage) and isinstance(last.content, str) else ""


_CUT_WHY = {
    "straggler": "still writing long after the greedy one",
    "looping": "repeating itself after the greedy one was done",
    "budget": "the run's budget ran out",
}


def _cut(
    ctx: Context, state: State, started: float, sink: StreamSink, why: str, *, kept: bool
) -> NodeMetrics:
    """The record of a candidate cut before it ended (``why``), and whether its code was kept."""
    return NodeMetrics(
        node="coder",
        model=ctx.model_for("coder"),
        prompt_tokens=0,
        completion_tokens=sink.chunks,
        seconds=round(time.time() - started, 3),
        revision=state.revision,
        ok=kept,
        started=round(started, 3),
        cut=why,
        streaming=sink.chunks > 0,
        kept=kept,
    )


async def _drop_stragglers(
    tasks: Sequence[asyncio.Future[_Answer]],
    factor: float,
    started: float,
    left: Callable[[], float | None],
    cuts: dict[int, str],
    sinks: Sequence[StreamSink] | None = None,
) -> None:
    """Wait for the greedy call; then cut the others that loop, or that run on without sinks.

    Once the greedy answer is in and ``factor`` times its time more has passed, a sampled
    call still writing is cut only when what it streamed repeats itself
    (:func:`agents.coder.looping`: cut as ``looping``); one that makes progress (a longer
    solution, a slower machine) writes on, bounded by its token budget and the run's budget.
    Without ``sinks`` (nothing to read the streams from) they are cut at the grace
    (``straggler``).
    """
    await asyncio.wait(tasks[:1], timeout=left())
    if not tasks[0].done() or tasks[0].exception() is not None:
        return  # no greedy answer: every other one is needed
    grace = factor * (time.monotonic() - started)
    budget = left()
    _, late = await asyncio.wait(tasks[1:], timeout=grace if budget is None else min(grace, budget))
    if sinks is None:
        _cancel(tasks, late, cuts, "straggler")
        return
    while late and left() != 0.0:
        looped = {t for t in late if looping(sinks[tasks.index(t)].text)}
        _cancel(tasks, looped, cuts, "looping")
        late -= looped
        budget = left()
        if late:
            _, late = await asyncio.wait(
                late, timeout=_LOOP_CHECK_S if budget is None else min(_LOOP_CHECK_S, budget)
            )


_LOOP_CHECK_S = 1.0
"""How often the sampled calls still writing after the greedy one are read for loops."""


def _cancel(
    tasks: Sequence[asyncio.Future[_Answer]],
    cut: set[asyncio.Future[_Answer]],
    cuts: dict[int, str],
    why: str,
) -> None:
    for index, task in enumerate(tasks):
        if task in cut:
            task.cancel()
            cuts[index] = why
    if cut:
        _log.info("candidates_cut", count=len(cut), why=why)


async def _without_stragglers(
    calls: list[Coroutine[Any, Any, _Answer]],
    factor: float | None,
    budget_s: float | None = None,
    cuts: dict[int, str] | None = None,
    sinks: Sequence[StreamSink] | None = None,
) -> list[_Answer | BaseException | None]:
    """Each call's answer (or its exception); None for one cut (looping, the budget).

    The first call (the greedy candidate) is always awaited, up to the run's budget. The
    others get ``factor`` times its time more once it has answered (all the time they need
    when it failed); then those that repeat themselves are cut (:func:`_drop_stragglers`):
    that frees the server, and the round waits for no answer that is looping to its token
    limit, while an answer that makes progress is never cut for being slow. Whatever is still
    running when ``budget_s`` (the run's budget left) runs out is cancelled too. A cancelled
    call's streamed text stays in its sink (:func:`_collected` keeps a whole block);
    ``cuts`` gets each cut call's index and why (``straggler`` or ``budget``).
    """
    cuts = {} if cuts is None else cuts
    started = time.monotonic()
    ends = started + budget_s if budget_s is not None else None
    tasks = [asyncio.ensure_future(call) for call in calls]

    def left() -> float | None:
        return None if ends is None else max(0.0, ends - time.monotonic())

    try:
        if factor is not None and len(tasks) > 1:
            await _drop_stragglers(tasks, factor, started, left, cuts, sinks)
        _, unfinished = await asyncio.wait(tasks, timeout=left())
        for index, task in enumerate(tasks):
            if task in unfinished:
                task.cancel()
                cuts[index] = "budget"
        if unfinished:
            _log.info("candidates_cut_at_budget", count=len(unfinished))
        await asyncio.wait(tasks)
    finally:
        for task in tasks:
            task.cancel()
    results: list[_Answer | BaseException | None] = []
    for task in tasks:
        if task.cancelled():
            results.append(None)
        else:
            error = task.exception()
            results.append(error if error is not None else task.result())
    return results


async def coder(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Write a round of candidate solutions (a revision's: as :func:`plan` says)."""
    ctx = context_of(runtime)
    previous, failures = "", []
    count = ctx.candidates
    best = state.chosen()
    if state.revision and best is not None:
        previous = best.code
        failures = [line for line in state.problems.splitlines() if line.strip()]
        count = ctx.revision_candidates
    made, metrics, errors = await _candidates(state, ctx, count, previous, failures)
    if not made and not state.scored:
        return {**failure(RuntimeError("coder: " + "; ".join(errors)[:600])), "metrics": metrics}
    return {"candidates": made, "metrics": metrics}


def entry_of(state: State) -> EntryPoint | None:
    """The run's entry point: the researcher's, or the statement's while the researcher works.

    On the parallel path (:func:`graphs.swarm.brief_in_parallel`) the coder and the test
    writer start beside the researcher, before it has set ``state.entry``; the statement names
    the entry point there, so both read the same one.
    """
    return state.entry or entry_point_of(state.task)


async def test_writer(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Write checks from the task alone; ``run_tests`` puts the statement's examples first."""
    ctx = context_of(runtime)
    entry = entry_of(state)
    messages = writer_agent.test_writer_messages(
        state.task, entry, ctx.prompt_layout, project=state.project_context
    )
    try:
        answer = await ask(ctx, "researcher", "test_writer", writer_agent.TestSuite, messages)
    except NodeFailedError as err:
        # The statement's examples (and the candidates' agreement) still choose.
        return {"metrics": [err.metrics]}
    written = writer_agent.writer_checks(answer.value, entry)
    return {"written_checks": written, "metrics": [answer.metrics]}


def merged_checks(statement: list[Check], written: list[Check]) -> list[Check]:
    """The statement's checks, then the written ones whose call they do not already make.

    A call the writer gave twice with different expectations is dropped: the writer is
    unsure of it, and either half would fail a right candidate. A repeat is kept once.
    """
    known = {check.key() for check in statement}
    wants: dict[tuple[tuple[str, ...], str], set[tuple[str, str | None]]] = {}
    for check in written:
        wants.setdefault(check.key(), set()).add((check.expected, check.raises))
    fresh: list[Check] = []
    for check in written:
        key = check.key()
        if key in known or len(wants[key]) > 1:
            continue
        known.add(key)
        fresh.append(check)
    return [*statement, *fresh]


def project_files(state: State) -> ProjectFiles:
    """The run's workspace and database, listed for copying beside each candidate."""
    return ProjectFiles.scan(
        Path(state.workspace) if state.workspace else None,
        Path(state.database) if state.database else None,
    )


def _as_run(candidate: Candidate) -> CandidateRun:
    return CandidateRun(gate=candidate.gate, verdicts=tuple(candidate.verdicts))


PROBE_LIMIT_S = 0.5
"""Time limit of one probe call (:mod:`agents.probes`): a right solution answers at once."""


def _score(
    candidate: Candidate,
    checks: list[Check],
    probed: list[Check],
    peered: list[Check],
    state: State,
    ctx: Context,
    project: ProjectFiles,
    altered_files: Mapping[str, bytes] | None = None,
) -> Candidate:
    why = gate(candidate.code, state.entry)  # once for the three runs
    files = project.for_code(candidate.code)  # the code runs among the user's files
    config = project.sandbox_config()  # and can import what the project's modules import
    run = run_checks(
        candidate.code,
        checks,
        state.entry,
        timeout_s=ctx.sandbox_timeout_s,
        gated=why,
        project=files,
        config=config,
    )
    verdicts = list(run.verdicts)
    if not run.gate and len(verdicts) != len(checks):
        verdicts = [Verdict(False, error="not run")] * len(checks)
    # Each in a process of its own: a probe or assert that hangs or kills it never costs a
    # check's verdict. Probes are only observed; the candidates' own asserts only rank.
    limit = ctx.sandbox_timeout_s
    beside = {**files, **(altered_files or {})}  # the probes' altered copies of the data
    seen = _apart(candidate.code, probed, state, limit, beside, config) if not run.gate else None
    ran = _apart(candidate.code, peered, state, limit, files, config) if not run.gate else None
    observed = [observation(v.got, v.error) for v in seen] if seen else []
    peers = [v.ok for v in ran] if ran else []
    return replace(candidate, gate=run.gate, verdicts=verdicts, observed=observed, peers=peers)


MAX_FILE_PROBES = 8
"""Probes on altered copies of the project's data files at most (of :data:`MAX_PROBES`)."""


def _probes(checks: list[Check], project: ProjectFiles) -> tuple[list[Check], dict[str, bytes]]:
    """The run's probe calls, and the altered data files they read (:mod:`tools.perturb`).

    Calls on altered copies of the files the checks name come first (a task over the user's
    data is told apart by them, not by a reversed path), then the literal variants.
    """
    read: dict[str, bytes | None] = {}  # each file read once (a database in full)

    def data(text: str) -> bytes | None:
        if text not in read:
            read[text] = project.data_file(text)
        return read[text]

    on_files, named = file_probes(checks, lambda text: data(text) is not None)
    made: dict[str, bytes] = {}
    for name in named:
        content = data(name)
        for copy in range(1, COPIES + 1):
            changed = altered(name, content, copy) if content is not None else None
            if changed is not None:
                made[probe_path(name, copy)] = changed
    usable = [call for call in on_files if any(repr(path) in call.call for path in made)]
    varied = probes(checks, files=set(named))
    return [*usable[:MAX_FILE_PROBES], *varied][:MAX_PROBES], made


def _apart(
    code: str,
    calls: list[Check],
    state: State,
    timeout_s: float,
    files: Mapping[str, str | bytes],
    config: SandboxConfig | None,
) -> list[Verdict] | None:
    """Verdicts on ``calls`` at a probe's time limit each; None when they gave nothing."""
    if not calls:
        return None
    run = run_checks(
        code,
        calls,
        state.entry,
        per_check_s=PROBE_LIMIT_S,
        timeout_s=timeout_s,
        gated="",
        project=files,
        config=config,
    )
    return list(run.verdicts) if not run.gate and len(run.verdicts) == len(calls) else None


def failure_line(check: Check, verdict: Verdict, crash_only: bool = False) -> str:
    """One failing check as a revision reads it: the call, what came back, what was due.

    ``crash_only``: the call's expected value is no evidence (:func:`crashed_only`): only
    that it must not raise what it raised.
    """
    want = f"raise {check.raises}" if check.raises else f"return {check.expected}"
    setup = f"after `{'; '.join(check.setup)}`, " if check.setup else ""
    came = f"raised {verdict.error}" if verdict.error else f"returned {verdict.got}"
    if crash_only:
        return f"- {setup}`{check.call}` {came}: fix the code so it does not fail"[:400]
    return f"- {setup}`{check.call}` {came}, but it should {want}"[:400]


def failure_lines(
    failing: Sequence[int], checks: Sequence[Check], runs: Sequence[CandidateRun], best: int
) -> list[str]:
    """The revision's feedback: each supported failure of the ``best`` run's (a line each)."""
    weights = support(checks, runs)
    verdicts = runs[best].verdicts
    return [
        failure_line(checks[i], verdicts[i], crashed_only(checks[i], verdicts[i].error, weights[i]))
        for i in failing
    ]


def attempt_text(number: int, code: str, problems: str) -> str:
    """One attempt as the unpruned baseline's history keeps it: its code and what failed."""
    return coder_agent.ATTEMPT.format(number=number, code=code.rstrip(), failures=problems)


def _test_run(
    best: Candidate | None, checks: list[Check], must: list[int], sandbox_s: float
) -> TestRun:
    if best is None or best.gate:
        why = best.gate if best else "no candidate was written"
        return TestRun(
            ok=False,
            passed=0,
            failed=max(1, len(checks)),
            exit_code=1,
            timed_out=False,
            output=why,
            duration_s=sandbox_s,
        )
    lines = []
    for check, verdict in zip(checks, best.verdicts, strict=True):
        mark = "PASS" if verdict.ok else "FAIL"
        lines.append(
            f"{mark} [{check.source}] {check.label()}"
            + ("" if verdict.ok else f" -> {verdict.error or verdict.got}")
        )
    passed = sum(1 for v in best.verdicts if v.ok)
    ok = all(best.verdicts[i].ok for i in must)
    return TestRun(
        ok=ok,
        passed=passed,
        failed=len(checks) - passed,
        exit_code=0 if ok else 1,
        timed_out=any(v.error.startswith("TimeoutError") for v in best.verdicts),
        output="\n".join(lines)[-_OUTPUT_CHARS:],
        duration_s=sandbox_s,
    )


@dataclass(frozen=True)
class Choice:
    """What the checks make of the candidates scored so far (:func:`choose`)."""

    best: Candidate | None
    """The one to keep (the greedy one when none passed the gate, so the report shows what
    was written); None when no candidate was written."""
    must: list[int] = field(default_factory=list)
    """The checks (their positions) a solution must pass (:func:`agents.selection.required`)."""
    failing: list[int] = field(default_factory=list)
    """The checks the best fails that evidence supports: what a revision repairs."""
    problems: str = ""
    """The next round's feedback: each supported failure, or why the best cannot run."""
    search: bool = False
    """Nothing to repair, but the best fails checks and the candidates differ: another round
    of fresh samples may find a better one."""

    @property
    def wants_another_round(self) -> bool:
        """Whether a next round has something to do: failures to repair, or a search."""
        return self.best is not None and bool(self.failing or self.search)


def choose(
    checks: list[Check],
    done: list[Candidate],
    blocked: Collection[str] = (),
    symbols: Mapping[str, str] | None = None,
    entry: str = "",
) -> Choice:
    """Rank the scored candidates (:func:`agents.selection.rank`) and say what failed.

    Pure: the verdicts are the candidates' own. ``blocked``: ids of candidates a tool found
    a blocking problem in; ``symbols`` and ``entry`` tell which project names each calls.
    When no candidate passes the gate the greedy one stands, and nothing is revised: there
    is no failing call to revise from. When the best fails only checks no evidence supports,
    the next round is a search (fresh samples, no feedback) if the candidates do not all
    behave alike (:func:`agents.selection.disagree`).
    """
    runs = [_as_run(c) for c in done]
    # A round's greedy answers (one per prompt) are the model's modes, not independent draws.
    voters = [("greedy", c.revision) if c.greedy else i for i, c in enumerate(done)]
    observed = [c.observed for c in done]
    calls = [project_calls(c.code, symbols or {}, entry) for c in done]
    ranking = rank(
        checks,
        runs,
        [c.greedy for c in done],
        {i for i, c in enumerate(done) if c.id in blocked},
        observed,
        voters,
        [c.peers for c in done],
        calls,
    )
    if not ranking:
        greedy = next((c for c in done if c.greedy), done[0] if done else None)
        return Choice(
            greedy, problems=f"- {greedy.gate}" if greedy else "- no candidate was written"
        )
    index = ranking[0].index
    best = done[index]
    if best.gate:
        return Choice(best, required(checks, runs), problems=f"- {best.gate}")
    failing = supported_failures(index, checks, runs)
    return Choice(
        best,
        required(checks, runs),
        failing,
        "\n".join(failure_lines(failing, checks, runs, index)),
        # No failure to repair from, but the candidates differ: search on with fresh samples.
        search=not failing and not all(v.ok for v in best.verdicts) and disagree(runs, observed),
    )


def next_round(
    choice: Choice, revision: int, max_revisions: int, budget_spent: bool, search: bool = True
) -> bool:
    """Whether another coder round runs.

    It does when it has something to do, a round is left, and the run's budget is not spent;
    a round that would only search (no supported failure to repair) runs only with ``search``
    (``Context.search_rounds``).
    """
    wanted = choice.wants_another_round and (search or bool(choice.failing))
    return wanted and revision < max_revisions and not budget_spent


async def run_tests(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Run each new candidate against every check; keep the best so far; say what failed.

    The sandbox runs (:func:`_score`) are the only I/O; what they mean is :func:`choose`'s,
    and whether another round runs :func:`next_round`'s.
    """
    if state.status == "failed":
        # The researcher beside the coder failed (the parallel path): nothing to choose.
        return {}
    ctx = context_of(runtime)
    checks = merged_checks(state.checks, state.written_checks)
    seen = {c.id for c in state.scored}
    new = [c for c in state.candidates if c.id not in seen]
    started = time.monotonic()
    try:
        scored = await _scored(new, checks, state, ctx)
    except (SandboxUnavailable, ValueError) as err:
        return failure(RuntimeError(f"run_tests: {err}"))
    sandbox_s = round(time.monotonic() - started, 3)
    done = [*state.scored, *scored]
    entry = state.entry.name if state.entry is not None else ""
    choice = choose(checks, done, state.blocked, state.project_symbols, entry)
    update: dict[str, Any] = {
        "checks": checks,
        "scored": done,
        "best": choice.best.id if choice.best else None,
        "files": _files(choice.best, checks),
        "test_run": _test_run(choice.best, checks, choice.must, sandbox_s),
        "problems": choice.problems,
        "decision": "finish",
    }
    spent = ctx.budget_left(state.started_at) == 0.0
    if spent and choice.wants_another_round:
        _log.info("budget_spent", revision=state.revision, best=update["best"])
    if next_round(choice, state.revision, ctx.max_revisions, spent, ctx.search_rounds):
        update |= {"decision": "revise", "revision": state.revision + 1}
        if not ctx.context_pruning:
            update["history"] = [_latest_attempt(state.revision + 1, done, len(new), checks)]
    return update


async def _scored(
    new: list[Candidate], checks: list[Check], state: State, ctx: Context
) -> list[Candidate]:
    """The new candidates with their verdicts on every check, probes and peers: the sandbox."""
    project = await asyncio.to_thread(project_files, state)
    probed: list[Check] = []
    altered_files: dict[str, bytes] = {}
    if ctx.probes:
        probed, altered_files = await asyncio.to_thread(_probes, checks, project)
    # Pooled from the first round only, so every candidate of every round runs the same ones.
    peered = (
        peer_checks([c.code for c in state.candidates if c.revision == 0], state.entry)
        if ctx.peer_tests
        else []
    )
    return list(
        await asyncio.gather(
            *(
                asyncio.to_thread(
                    _score, c, checks, probed, peered, state, ctx, project, altered_files
                )
                for c in new
            )
        )
    )


def _latest_attempt(number: int, done: list[Candidate], new: int, checks: list[Check]) -> str:
    """The unpruned history's entry: the round's first candidate and the checks it failed."""
    runs = [_as_run(c) for c in done]
    index = len(done) - max(1, new)
    latest = done[index]
    failing = [] if latest.gate else supported_failures(index, checks, runs)
    lines = failure_lines(failing, checks, runs, index) or [f"- {latest.gate}"]
    return attempt_text(number, latest.code, "\n".join(lines))


def _files(best: Candidate | None, checks: list[Check]) -> dict[str, str]:
    if best is None:
        return {}
    return {SOLUTION: best.code, TESTS: checks_module(checks)}


def route_after_tests(state: State) -> Literal["coder", "gather_evidence", "finish"]:
    """Revise from concrete failures while rounds are left; else on to the auditors."""
    if state.status == "failed":
        return "finish"
    return "coder" if state.decision == "revise" else "gather_evidence"
