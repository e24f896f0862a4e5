"""The nodes that write and choose the code: coder, test writer and the checks' run.

The coder writes several candidates at once (one greedy, the rest sampled with distinct
seeds; vLLM batches them), the test writer writes checks from the task alone, and
``run_tests`` runs every new candidate against every check in the sandbox and keeps the best
candidate so far (:mod:`agents.selection`). A revision is a new round of candidates written
from the best one and the checks it failed, with what each call returned; a search round
(no supported failure, but candidates that differ) is fresh samples only.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine
from dataclasses import replace
from typing import Any, Literal, TypeVar

from langgraph.runtime import Runtime

from agents import coder as coder_agent
from agents import test_writer as writer_agent
from agents.checks import checks_module
from agents.coder import CodeDraft, CoderPrompt
from agents.examples import Check, EntryPoint, entry_point_of
from agents.peer_tests import peer_checks
from agents.probes import observation, probes
from agents.selection import disagree, rank, required, supported_failures
from graphs.context import Context, context_of
from graphs.llm import Answer, NodeFailedError, ask, ask_code, failure
from graphs.state import Candidate, NodeMetrics, State, TestRun
from runtime.logs import get_logger
from tools.check_runner import CandidateRun, Verdict, gate, run_checks
from tools.sandbox import SandboxUnavailable

SOLUTION, TESTS = "solution.py", "test_solution.py"
_OUTPUT_CHARS = 1200
_SEED_STRIDE = 1000
_log = get_logger("graph")


def plan(
    ctx: Context, revision: int, count: int, repair: bool = True
) -> list[tuple[float, int, CoderPrompt]]:
    """Each candidate's (temperature, seed, prompt) for a round of ``count``.

    A first round opens with the greedy answer to the plain prompt, asked as a user asks (no
    grammar: what one plain call of the model writes, stopped once its first code block
    closes; it wins ties), then the greedy answer to the coder's own prompt, then samples at
    ``sample_temperature`` with distinct seeds, of the plain prompt and of the stub prompt in
    turn (at a low temperature each is as often right as the greedy answer, so the behaviour
    most of them share is more often the right one; the two prompts are right on different
    tasks: :data:`agents.coder.CoderPrompt`). A revision round opens with the greedy answer
    to the coder's prompt with the failures, then fresh samples at new seeds: the plain
    prompt at ``wide_temperature``, the stub prompt, the plain prompt, and so on: more
    search, and wider, not more repair (a small model's repairs of its own code rarely fix
    the logic; measured in make eval of 20ab8c2, none of 20 repairs was right, while 2 of 39
    fresh samples were). Without ``repair`` (a search round: no failure any evidence
    supports, so nothing to repair from) every candidate is a fresh sample.
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
            [(greedy, seeds[0], "system")] if repair else []
        )
        fresh = seeds[len(again) :]
        return again + [(kinds[i % 3][0], seed, kinds[i % 3][1]) for i, seed in enumerate(fresh)]
    rounds: list[tuple[float, int, CoderPrompt]] = [(greedy, ctx.seed, "plain")]
    if count > 1:
        rounds.append((greedy, ctx.seed, "system"))
    kind: tuple[CoderPrompt, ...] = ("plain", "stub")
    return rounds + [
        (ctx.sample_temperature, seed, kind[i % 2]) for i, seed in enumerate(seeds[2:])
    ]


async def _candidates(
    state: State, ctx: Context, count: int, previous: str, failures: list[str]
) -> tuple[list[Candidate], list[NodeMetrics], list[str]]:
    task, entry = state.task.strip(), entry_of(state)
    notes = state.coder_briefing if state.research_notes else ""
    messages = {
        "system": coder_agent.coder_messages(
            task,
            entry,
            notes=notes,
            previous=previous,
            failures=failures,
            history=[] if ctx.context_pruning else state.history,
            order=ctx.prompt_layout,
        ),
        # exactly one plain call of the model (the eval's plain arm): the task, no notes
        "plain": coder_agent.plain_messages(task, entry),
    }
    stub = coder_agent.stub_messages(task, entry)
    if stub is not None:
        messages["stub"] = stub
    rounds = [
        (temp, seed, prompt if prompt in messages else "plain")
        for temp, seed, prompt in plan(ctx, state.revision, count, repair=bool(failures))
    ]

    def candidate(
        temp: float, seed: int, prompt: CoderPrompt, whole: bool
    ) -> Coroutine[Any, Any, Answer[CodeDraft]]:
        return ask_code(
            ctx,
            messages[prompt],
            revision=state.revision,
            sampling=(temp, seed),
            greedy=whole,
            plain=prompt != "system",
        )

    # One attempt each while others stand in: a greedy answer that loops to its budget would
    # otherwise get a larger budget, then the fallback model (a 135M model that writes no
    # right code), keeping the whole round waiting up to three time-outs (measured: 360 and
    # 530 s on two dev tasks). The whole policy is for a lone candidate, or when all failed.
    lone = len(rounds) == 1
    calls = [candidate(*one, lone) for one in rounds]
    answers = await _without_stragglers(calls, ctx.straggler_factor)
    if not lone and not any(isinstance(answer, Answer) for answer in answers):
        try:
            retried: Answer[CodeDraft] | BaseException = await candidate(*rounds[0], True)
        except NodeFailedError as err:
            retried = err
        rounds, answers = [*rounds, rounds[0]], [*answers, retried]
    made: list[Candidate] = []
    metrics: list[NodeMetrics] = []
    errors: list[str] = []
    for (temp, seed, prompt), answer in zip(rounds, answers, strict=True):
        if answer is None:
            errors.append(f"candidate (seed {seed}) dropped: still writing long after the greedy")
        elif isinstance(answer, NodeFailedError):
            metrics.append(answer.metrics)
            errors.append(str(answer))
        elif isinstance(answer, BaseException):
            raise answer
        elif isinstance(answer, Answer):
            made.append(
                Candidate(
                    code=answer.value.code,
                    revision=state.revision,
                    greedy=temp == 0.0,
                    seed=seed,
                    prompt=prompt,
                )
            )
            metrics.append(answer.metrics)
    return made, metrics, errors


_Answer = TypeVar("_Answer")


async def _without_stragglers(
    calls: list[Coroutine[Any, Any, _Answer]], factor: float | None
) -> list[_Answer | BaseException | None]:
    """Each call's answer (or its exception); None for a sampled one dropped as a straggler.

    The first call (the greedy candidate) is always awaited. The others get ``factor`` times
    its time more once it has answered (all the time they need when it failed), then are
    cancelled: that frees the server for the rest of the run, and the round waits for no
    answer that is looping to its token limit.
    """
    started = time.monotonic()
    tasks = [asyncio.ensure_future(call) for call in calls]
    try:
        if factor is not None and len(tasks) > 1:
            await asyncio.wait(tasks[:1])
            if tasks[0].exception() is None:  # no greedy answer: every other one is needed
                grace = factor * (time.monotonic() - started)
                _, late = await asyncio.wait(tasks[1:], timeout=grace)
                for task in late:
                    task.cancel()
                if late:
                    _log.info("candidates_dropped", count=len(late), grace_s=round(grace, 1))
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
    """Write a round of candidate solutions (a revision: from the best one and its failures)."""
    ctx = context_of(runtime)
    previous, failures = "", []
    count = ctx.candidates
    if state.revision and state.best is not None:
        previous = state.scored[state.best].code
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
    messages = writer_agent.test_writer_messages(state.task, entry, ctx.prompt_layout)
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
) -> Candidate:
    why = gate(candidate.code, state.entry)  # once for the three runs
    run = run_checks(
        candidate.code, checks, state.entry, timeout_s=ctx.sandbox_timeout_s, gated=why
    )
    verdicts = list(run.verdicts)
    if not run.gate and len(verdicts) != len(checks):
        verdicts = [Verdict(False, error="not run")] * len(checks)
    # Each in a process of its own: a probe or assert that hangs or kills it never costs a
    # check's verdict. Probes are only observed; the candidates' own asserts only rank.
    limit = ctx.sandbox_timeout_s
    seen = _apart(candidate.code, probed, state, limit) if not run.gate else None
    ran = _apart(candidate.code, peered, state, limit) if not run.gate else None
    observed = [observation(v.got, v.error) for v in seen] if seen else []
    peers = [v.ok for v in ran] if ran else []
    return replace(candidate, gate=run.gate, verdicts=verdicts, observed=observed, peers=peers)


def _apart(code: str, calls: list[Check], state: State, timeout_s: float) -> list[Verdict] | None:
    """Verdicts on ``calls`` at a probe's time limit each; None when they gave nothing."""
    if not calls:
        return None
    run = run_checks(
        code, calls, state.entry, per_check_s=PROBE_LIMIT_S, timeout_s=timeout_s, gated=""
    )
    return list(run.verdicts) if not run.gate and len(run.verdicts) == len(calls) else None


def failure_line(check: Check, verdict: Verdict) -> str:
    """One failing check as a revision reads it: the call, what came back, what was due."""
    want = f"raise {check.raises}" if check.raises else f"return {check.expected}"
    setup = f"after `{'; '.join(check.setup)}`, " if check.setup else ""
    came = f"raised {verdict.error}" if verdict.error else f"returned {verdict.got}"
    return f"- {setup}`{check.call}` {came}, but it should {want}"[:400]


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


async def run_tests(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Run each new candidate against every check; keep the best so far; say what failed.

    When no candidate passes the gate the greedy one stands, so the report shows what was
    written, and nothing is revised: there is no failing call to revise from. When the best
    fails only checks no evidence supports, the next round is a search (fresh samples, no
    feedback) if the candidates do not all behave alike (:func:`agents.selection.disagree`).
    """
    if state.status == "failed":
        # The researcher beside the coder failed (the parallel path): nothing to choose.
        return {}
    ctx = context_of(runtime)
    checks = merged_checks(state.checks, state.written_checks)
    done = list(state.scored)
    new = state.candidates[len(done) :]
    probed = probes(checks) if ctx.probes else []
    # Pooled from the first round only, so every candidate of every round runs the same ones.
    peered = (
        peer_checks([c.code for c in state.candidates if c.revision == 0], state.entry)
        if ctx.peer_tests
        else []
    )
    started = time.monotonic()
    try:
        scored = await asyncio.gather(
            *(asyncio.to_thread(_score, c, checks, probed, peered, state, ctx) for c in new)
        )
    except (SandboxUnavailable, ValueError) as err:
        return failure(RuntimeError(f"run_tests: {err}"))
    sandbox_s = round(time.monotonic() - started, 3)
    done += scored
    runs = [_as_run(c) for c in done]
    # A round's greedy answers (one per prompt) are the model's modes, not independent draws.
    voters = [("greedy", c.revision) if c.greedy else i for i, c in enumerate(done)]
    greedy = [c.greedy for c in done]
    observed = [c.observed for c in done]
    peers = [c.peers for c in done]
    ranking = rank(checks, runs, greedy, set(state.blocked), observed, voters, peers)
    must: list[int] = []
    failing: list[int] = []
    search = False
    if ranking:
        best_index: int | None = ranking[0].index
        must = required(checks, runs)
    else:
        best_index = next((i for i, c in enumerate(done) if c.greedy), 0) if done else None
    best = done[best_index] if best_index is not None else None
    if best is None or best.gate:
        problems = f"- {best.gate}" if best else "- no candidate was written"
    else:
        failing = supported_failures(best_index or 0, checks, runs)
        problems = "\n".join(failure_line(checks[i], best.verdicts[i]) for i in failing)
        # No failure to repair from, but the candidates differ: search on with fresh samples.
        search = not failing and not all(v.ok for v in best.verdicts) and disagree(runs, observed)
    update: dict[str, Any] = {
        "checks": checks,
        "scored": done,
        "best": best_index,
        "files": _files(best, checks),
        "test_run": _test_run(best, checks, must, sandbox_s),
        "problems": problems,
        "decision": "finish",
    }
    if (failing or search) and best is not None and state.revision < ctx.max_revisions:
        update |= {"decision": "revise", "revision": state.revision + 1}
        if not ctx.context_pruning:
            update["history"] = [_latest_attempt(state.revision + 1, done, len(new), checks, runs)]
    return update


def _latest_attempt(
    number: int, done: list[Candidate], new: int, checks: list[Check], runs: list[CandidateRun]
) -> str:
    """The unpruned history's entry: the round's first candidate and the checks it failed."""
    index = len(done) - max(1, new)
    latest = done[index]
    failing = [] if latest.gate else supported_failures(index, checks, runs)
    lines = [failure_line(checks[i], latest.verdicts[i]) for i in failing] or [f"- {latest.gate}"]
    return attempt_text(number, latest.code, "\n".join(lines))


def _files(best: Candidate | None, checks: list[Check]) -> dict[str, str]:
    if best is None:
        return {}
    return {SOLUTION: best.code, TESTS: checks_module(checks)}


def route_after_tests(state: State) -> Literal["coder", "summarize_code", "finish"]:
    """Revise from concrete failures while rounds are left; else on to the auditors."""
    if state.status == "failed":
        return "finish"
    return "coder" if state.decision == "revise" else "summarize_code"
