"""Choosing among candidate solutions by what they do when run, never by what a model says.

Pure functions of the execution results (no I/O), so every rule is unit-tested on its own:

- a check's weight: the task's own examples are trusted (:data:`STATEMENT_WEIGHT`); a test
  writer's check weighs the share of candidates that pass it, so a check that contradicts
  every candidate (most likely a wrong expected value) weighs nothing;
- a candidate's score: the weighted checks it passes; ties go to the behaviour most
  candidates share (the same value returned, or the same exception raised, by every check's
  call: independent samples that agree on what the code does are more likely right, even
  where a check's expected value is wrong), then to the greedy candidate, then to the
  earlier one, so a later revision replaces the best so far only when it passes more;
- whether to revise: only when the best fails a check that some evidence supports (a stated
  example, or a writer's check that another candidate passes), with those failures as the
  concrete feedback.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from agents.examples import Check
from tools.check_runner import CandidateRun

STATEMENT_WEIGHT = 3.0
"""Weight of one of the task's own examples against a writer check all candidates pass."""
MAX_FEEDBACK = 4
"""Failing checks a revision is told about."""


@dataclass(frozen=True)
class Scored:
    """One candidate's standing."""

    index: int
    """Its position in the candidates (all rounds, in order)."""
    score: float
    agreement: int
    """How many gated candidates behave the same on every check's call (:func:`behaviour`)."""
    passed: int
    failed: int


def support(checks: Sequence[Check], runs: Sequence[CandidateRun]) -> list[float]:
    """Each check's weight: trusted for the statement's; the share passing it for a writer's."""
    gated = [run for run in runs if not run.gate and run.verdicts]
    weights: list[float] = []
    for index, check in enumerate(checks):
        if check.source == "statement":
            weights.append(STATEMENT_WEIGHT)
            continue
        passing = sum(1 for run in gated if run.verdicts[index].ok)
        weights.append(passing / len(gated) if gated else 0.0)
    return weights


def behaviour(run: CandidateRun) -> tuple[tuple[bool, str, str], ...]:
    """What a candidate did on each check's call: passed, what came back, the error's type."""
    return tuple((v.ok, v.got, v.error.partition(":")[0]) for v in run.verdicts)


def rank(
    checks: Sequence[Check],
    runs: Sequence[CandidateRun],
    greedy: Sequence[bool],
    blocked: Collection[int] = (),
) -> list[Scored]:
    """Candidates that passed the gate, best first (see the module's rules).

    ``blocked``: candidates a tool found a blocking problem in; they rank after every other.
    """
    weights = support(checks, runs)
    behaviours = Counter(behaviour(run) for run in runs if not run.gate)
    scored = [
        Scored(
            index=i,
            score=round(sum(w for w, v in zip(weights, run.verdicts, strict=True) if v.ok), 6),
            agreement=behaviours[behaviour(run)],
            passed=sum(run.passed),
            failed=len(run.verdicts) - sum(run.passed),
        )
        for i, run in enumerate(runs)
        if not run.gate
    ]
    return sorted(
        scored,
        key=lambda s: (s.index in blocked, -s.score, -s.agreement, not greedy[s.index], s.index),
    )


def required(checks: Sequence[Check], runs: Sequence[CandidateRun]) -> list[int]:
    """Indexes of the checks a solution must pass to be approved.

    The statement's examples, and the writer's checks that most gated candidates pass (a
    check that most independent attempts contradict is more likely wrong than they are).
    """
    weights = support(checks, runs)
    return [
        i
        for i, (check, weight) in enumerate(zip(checks, weights, strict=True))
        if check.source == "statement" or weight > 0.5
    ]


def supported_failures(
    best: int, checks: Sequence[Check], runs: Sequence[CandidateRun]
) -> list[int]:
    """Checks the best candidate fails that some evidence supports (first :data:`MAX_FEEDBACK`).

    A statement example always counts; a writer's check counts when another candidate passes
    it, so nobody revises code towards an expected value nothing agrees with.
    """
    weights = support(checks, runs)
    verdicts = runs[best].verdicts
    failing = [
        i
        for i, check in enumerate(checks)
        if not verdicts[i].ok and (check.source == "statement" or weights[i] > 0)
    ]
    return failing[:MAX_FEEDBACK]
