"""Choosing among candidate solutions by what they do when run, never by what a model says.

Pure functions of the execution results (no I/O), so every rule is unit-tested on its own:

- a check's weight: the task's own examples are trusted (:data:`STATEMENT_WEIGHT`); a test
  writer's check weighs the share of candidates that pass it, so a check that contradicts
  every candidate (most likely a wrong expected value) weighs nothing;
- a candidate's score: the weighted checks it passes, of those a solution must pass
  (:func:`required`: a writer's check that most candidates fail is more likely wrong than
  they are, and one candidate that happens to satisfy it must not outrank the behaviour most
  of them share); ties go first to the one that passes more of the asserts the candidates
  wrote beside their code (:func:`peer_scores`, :mod:`agents.peer_tests`), then to the one
  that agrees
  most with the others on what the code does (:func:`agreement`: the same value returned, or
  the same exception raised, call by call, on the checks' calls and on the probes of
  :mod:`agents.probes`; independent samples that agree are more likely right, even where a
  check's expected value is wrong; a round's greedy answers count as one voter), then to
  the candidate that passes more of the writer's checks that are not required but that two
  independent candidates pass (:func:`backed`: the writer and two samples agreeing on one
  call is weaker evidence than two samples agreeing on every call), then to
  the one that crashes on fewer probes (an IndexError on an input varied from a check's is
  a bug, not a refusal), then to the greedy
  candidate, then to the earlier one, so a later revision replaces the best so far only when
  it passes more. Two kinds of candidate rank after every other of the same score, whatever
  else they have: one that never returned (it raised on every check and every probe, and
  passed nothing: :func:`never_returned`) and one that returned the same value on every call
  where the checks expect different ones (:func:`constant`): such code does nothing with its
  input, and two of them agree with each other, or with the many answers that are the same
  by chance, more than a right candidate does. Among the rest, after crashes and before the
  greedy, the candidate that calls more of the project's own functions (:func:`project_calls`,
  a task over a project asks for its helpers) goes first. Replayed offline on the recorded
  candidates of three project-set evals (40 tasks each), the two demotions and the project
  tie-break chose right on 2 more tasks in two of them (08, 22; 03, 20) and lost none; on the
  context-free evals' 1,000 choices they lost none;
- whether to revise: only when the best fails a check that some evidence supports (a stated
  example, or a writer's check that another candidate passes), with those failures as the
  concrete feedback;
- whether to search on without feedback (a round of fresh samples only): when the best fails
  a check no evidence supports and the candidates do not all behave alike (:func:`disagree`).
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Container, Hashable, Sequence
from dataclasses import dataclass

from agents.examples import TRUSTED
from agents.probes import observation, raised
from tools.check_runner import CandidateRun, Check
from tools.pysource import parse

STATEMENT_WEIGHT = 3.0
"""Weight of one of the task's own examples against a writer check all candidates pass."""
MAX_FEEDBACK = 4
"""Failing checks a revision is told about."""
CRASHES = frozenset(
    {
        "AttributeError",
        "FileNotFoundError",
        "ImportError",
        "IndexError",
        "KeyError",
        "ModuleNotFoundError",
        "NameError",
        "OperationalError",
        "RecursionError",
        "TimeoutError",
        "UnboundLocalError",
        "ZeroDivisionError",
    }
)
"""Exceptions that say the code broke, not that it refused an input on purpose (ValueError).

In a project, code that queries a table or column its database lacks (sqlite3's
``OperationalError``), opens a file the project does not have, or imports a module it does not
hold is broken the same way."""


@dataclass(frozen=True)
class Scored:
    """One candidate's standing."""

    index: int
    """Its position in the candidates (all rounds, in order)."""
    score: float
    agreement: float
    """Calls on which another voter's gated candidates did the same, summed (:func:`agreement`)."""
    crashes: int
    """Probes on which it raised one of :data:`CRASHES`."""
    passed: int
    failed: int
    peer: float = 0.0
    """The candidates' own asserts it passes, each weighed by the share passing it."""
    backed: float = 0.0
    """The writer's checks it passes that are not required but :func:`backed`, by weight."""
    inert: bool = False
    """It never returned, or returned one value for every call (:func:`never_returned`,
    :func:`constant`)."""
    project: int = 0
    """The project's own functions it calls (:func:`project_calls`)."""


def _calls(run: CandidateRun, observed: Sequence[str]) -> list[str]:
    """What the inert rules look at: the probes' outcomes, or the checks' without probes.

    A writer's check with a wrong expected value may itself raise (the expected value names
    nothing), so its verdict says little of what the code returns; the probes call the code
    alone.
    """
    return list(observed) if observed else outcomes(run)


def never_returned(run: CandidateRun, observed: Sequence[str] = ()) -> bool:
    """Whether a gated candidate passed no check and raised on every probe.

    Without probes, on every check's call.

    A candidate that raises the same ``TypeError`` on every call agrees with every other one
    that does (``TypeError`` is not one of :data:`CRASHES`: a refusal may be meant), and a
    cluster of them outvoted the one right candidate (project set, ``receipt_line``).
    """
    seen = _calls(run, observed)
    return bool(seen) and not any(run.passed) and all(raised(o) for o in seen)


def constant(run: CandidateRun, checks: Sequence[Check], observed: Sequence[str] = ()) -> bool:
    """Whether it returned one value whenever it returned, while the checks expect several.

    On the probes; without probes, on the checks' calls. Raising on some calls does not
    make it vary: ``return False`` that raises TypeError on some inputs outvoted the right
    candidate as well (project set, ``is_cancelled``, run of session 21).

    Code that ignores its input (``return False``) agrees with every candidate on the calls
    whose answer happens to be that value: two such answers outvoted the right ones
    (project set, ``is_cancelled``).
    """
    expected = {check.expected for check in checks if check.raises is None}
    returned = [seen for seen in _calls(run, observed) if not raised(seen)]
    return len(expected) > 1 and len(returned) > 1 and len(set(returned)) == 1


def project_calls(code: str, symbols: Container[str], entry: str = "") -> int:
    """The distinct functions of the user's project (``symbols``) that ``code`` calls.

    Names it defines itself, and the entry point, do not count. 0 for code that does not
    parse.
    """
    try:
        tree = parse(code)
    except (SyntaxError, ValueError):
        return 0
    own = {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    }
    called: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        if isinstance(name, str) and name in symbols and name not in own and name != entry:
            called.add(name)
    return len(called)


def support(checks: Sequence[Check], runs: Sequence[CandidateRun]) -> list[float]:
    """Each check's weight: trusted for the statement's; the share passing it for a writer's."""
    gated = [run for run in runs if not run.gate and run.verdicts]
    weights: list[float] = []
    for index, check in enumerate(checks):
        if check.source in TRUSTED:
            weights.append(STATEMENT_WEIGHT)
            continue
        passing = sum(1 for run in gated if run.verdicts[index].ok)
        weights.append(passing / len(gated) if gated else 0.0)
    return weights


def outcomes(run: CandidateRun, observed: Sequence[str] = ()) -> list[str]:
    """What a candidate did, call by call: the checks' calls, then the probes ``observed``."""
    return [observation(v.got, v.error) for v in run.verdicts] + list(observed)


def peer_scores(runs: Sequence[CandidateRun], peers: Sequence[Sequence[bool]]) -> list[float]:
    """For each candidate: the peer asserts it passes, each weighed by the share passing it.

    ``peers``: each run's verdicts on the pooled asserts (:mod:`agents.peer_tests`), empty
    where it has none. The share is over the gated candidates that ran them, so an assert
    that no other candidate passes weighs little, and one that all pass tells nobody apart.
    """
    ran = [row for run, row in zip(runs, peers, strict=False) if not run.gate and row]
    width = min((len(row) for row in ran), default=0)
    shares = [sum(1 for row in ran if row[k]) / len(ran) for k in range(width)]
    return [
        sum(share for share, ok in zip(shares, peers[i], strict=False) if ok)
        if i < len(peers) and not run.gate
        else 0.0
        for i, run in enumerate(runs)
    ]


def backed(
    checks: Sequence[Check],
    runs: Sequence[CandidateRun],
    voters: Sequence[Hashable] | None = None,
    weights: Sequence[float] | None = None,
) -> list[int]:
    """The writer's checks, not required, that candidates of two voters or more pass.

    A writer's check most candidates fail is not required (:func:`required`): one sample
    that happens to pass a wrong expected value must not outrank the rest. But when two
    independent samples (``voters``, as in :func:`agreement`) pass it, the writer and they
    agree on a behaviour the statement asks for and most samples dropped. Measured: on
    bank_account ("deposit ... returns the new balance") two of three fresh samples returned
    it and passed the writer's ``BankAccount(2).deposit(3) == 5``; the first round's four did
    not, and one of them was chosen. Replayed over the dev split's choices in the evals of
    2026-12-04 (283): none changed; the ones a single lucky sample decides (word_count's
    wrong candidate passing a wrong check alone) stay as they were.

    It ranks after :func:`agreement`, not before: two samples that pass one writer's call
    may share nothing else. On the project set's final_exam_grade (three runs) the writer
    expected ``0.0`` for 0 points; two wrong candidates that differed on every probe both
    returned it, and outranked the two right ones, which returned the same on every call.
    Replayed on the 2,447 recorded choices of the evals in bench/results: right on those 3
    more, lost none, 6 other choices changed between wrong candidates. bank_account's
    candidates that return None are now ranked last by :func:`constant` anyway.

    ``weights``: the checks' :func:`support`, where the caller has it already.
    """
    must = set(_required(checks, support(checks, runs) if weights is None else weights))
    groups = _voters(runs, voters)
    found = []
    for k, check in enumerate(checks):
        if k in must or check.source != "writer":
            continue
        passing = {groups[i] for i, run in enumerate(runs) if not run.gate and run.verdicts[k].ok}
        if len(passing) >= 2:
            found.append(k)
    return found


def _voters(runs: Sequence[CandidateRun], voters: Sequence[Hashable] | None) -> Sequence[Hashable]:
    """Each candidate's voter: ``voters`` as given, or every candidate its own."""
    return list(range(len(runs))) if voters is None else voters


def crashes(observed: Sequence[str]) -> int:
    """Probe outcomes (:func:`agents.probes.observation`) that are one of :data:`CRASHES`."""
    return sum(1 for seen in observed if raised(seen) in CRASHES)


def agreement(
    runs: Sequence[CandidateRun],
    observed: Sequence[Sequence[str]] = (),
    voters: Sequence[Hashable] | None = None,
) -> list[float]:
    """For each candidate: on how many (call, other voter) pairs both did the same.

    A pairwise count, not the size of an exact-behaviour cluster: two right candidates that
    differ on one call nobody specified (a tie broken another way) still agree on the rest.
    ``observed``: each run's probe outcomes (empty where its probe run gave none). A candidate
    that did not pass the gate agrees with nothing.

    ``voters``: each candidate's voter; candidates that share one are not independent
    evidence (a round's greedy answers to two prompts, the model's modes: they often write
    the same code). Such a voter counts once, as its members' mean, and a candidate gets
    nothing from its own voter. Without it every candidate is its own voter. Measured on the
    dev split's ties mixing right and wrong candidates in five evals (27): the greedy pair
    counted as one voter chose right 22 times, as two 20 (reverse_words twice and
    bank_account won, remove_duplicates lost).

    Crashing alike (both raised one of :data:`CRASHES` on a call) is not agreement: two
    candidates with the same bug are no evidence for each other. Measured over the evals
    kept in bench/results (2026-12-03 and -04), on the tasks where some candidates were right
    and some wrong (169 choices, the rank's order on the probes' outcomes): right 134 times
    instead of 130, none lost (dev:
    transpose, whose wrong candidates all raised IndexError on the probes, and
    bank_account twice).
    """
    rows = _behaviours(runs, observed)
    groups = _voters(runs, voters)
    counts: list[float] = []
    for i, mine in enumerate(rows):
        by_voter: dict[Hashable, list[int]] = {}
        for j, theirs in enumerate(rows):
            if groups[j] == groups[i] or mine is None or theirs is None:
                continue
            same = sum(
                1 for a, b in zip(mine, theirs, strict=False) if a == b and raised(a) not in CRASHES
            )
            by_voter.setdefault(groups[j], []).append(same)
        counts.append(sum(sum(seen) / len(seen) for seen in by_voter.values()))
    return counts


def rank(
    checks: Sequence[Check],
    runs: Sequence[CandidateRun],
    greedy: Sequence[bool],
    blocked: Collection[int] = (),
    observed: Sequence[Sequence[str]] = (),
    voters: Sequence[Hashable] | None = None,
    peers: Sequence[Sequence[bool]] = (),
    project: Sequence[int] = (),
) -> list[Scored]:
    """Candidates that passed the gate, best first (see the module's rules).

    ``blocked``: candidates a tool found a blocking problem in; they rank after every other.
    ``observed``: each run's probe outcomes (:func:`agents.probes.observation`), or nothing.
    ``voters``: who is independent evidence of whom (:func:`agreement`).
    ``peers``: each run's verdicts on the candidates' own asserts (:func:`peer_scores`).
    ``project``: the project's functions each calls (:func:`project_calls`), or nothing.
    """
    shares = support(checks, runs)
    must = set(_required(checks, shares))
    weights = [w if k in must else 0.0 for k, w in enumerate(shares)]
    extra = set(backed(checks, runs, voters, shares))
    agreed = agreement(runs, observed, voters)
    peer = peer_scores(runs, peers)
    scored = [
        Scored(
            index=i,
            score=round(sum(w for w, v in zip(weights, run.verdicts, strict=True) if v.ok), 6),
            agreement=agreed[i],
            crashes=crashes(observed[i]) if i < len(observed) else 0,
            passed=sum(run.passed),
            failed=len(run.verdicts) - sum(run.passed),
            peer=round(peer[i], 6),
            backed=round(sum(shares[k] for k in extra if run.verdicts[k].ok), 6),
            inert=never_returned(run, seen) or constant(run, checks, seen),
            project=project[i] if i < len(project) else 0,
        )
        for i, run in enumerate(runs)
        for seen in [observed[i] if i < len(observed) else ()]
        if not run.gate
    ]
    return sorted(
        scored,
        key=lambda s: (
            s.index in blocked,
            -s.score,
            s.inert,
            -s.peer,
            -s.agreement,
            -s.backed,
            s.crashes,
            -s.project,
            not greedy[s.index],
            s.index,
        ),
    )


def required(checks: Sequence[Check], runs: Sequence[CandidateRun]) -> list[int]:
    """Indexes of the checks a solution must pass to be approved.

    The statement's examples, and the writer's checks that most gated candidates pass (a
    check that most independent attempts contradict is more likely wrong than they are).
    """
    return _required(checks, support(checks, runs))


def _required(checks: Sequence[Check], weights: Sequence[float]) -> list[int]:
    return [
        i
        for i, (check, weight) in enumerate(zip(checks, weights, strict=True))
        if check.source in TRUSTED or weight > 0.5
    ]


def disagree(runs: Sequence[CandidateRun], observed: Sequence[Sequence[str]] = ()) -> bool:
    """Whether the gated candidates did not all do the same, call by call (probes included).

    When a check fails every candidate, only this tells a systematic slip of the model, or a
    wrong check (they all behave alike: more samples of the same prompt would too), from a
    task the model is unsure of (they differ: another sample may be the right one). Measured
    in two whole evals, on the runs that ended after one round with the
    chosen candidate failing a check: the candidates differed on 18 of 20 unsolved tasks and
    on 14 of 55 solved ones (so a search round costs little on what is already solved).
    """
    return len({tuple(row) for row in _behaviours(runs, observed) if row is not None}) > 1


def _behaviours(
    runs: Sequence[CandidateRun], observed: Sequence[Sequence[str]]
) -> list[list[str] | None]:
    """Each run's :func:`outcomes` (its probes' where it has them); None for a gated-out run."""
    return [
        outcomes(run, observed[i] if i < len(observed) else ()) if not run.gate else None
        for i, run in enumerate(runs)
    ]


def supported_failures(
    best: int, checks: Sequence[Check], runs: Sequence[CandidateRun]
) -> list[int]:
    """Checks the best candidate fails that some evidence supports (first :data:`MAX_FEEDBACK`).

    A statement example always counts; a writer's check counts when another candidate passes
    it, so nobody revises code towards an expected value nothing agrees with; and so does a
    writer's call the best crashed on (one of :data:`CRASHES`: ``no such table``, a name it
    never defined), whatever its expected value: a crash is a bug, and its message is the
    feedback (:func:`crashed_only`).
    """
    weights = support(checks, runs)
    verdicts = runs[best].verdicts
    failing = [
        i
        for i, check in enumerate(checks)
        if not verdicts[i].ok
        and (check.source in TRUSTED or weights[i] > 0 or crash(verdicts[i].error))
    ]
    return failing[:MAX_FEEDBACK]


def crash(error: str) -> bool:
    """Whether a verdict's error (``Type: message``) is one of :data:`CRASHES`."""
    return bool(error) and error.partition(":")[0].strip() in CRASHES


def crashed_only(check: Check, error: str, weight: float) -> bool:
    """Whether a failure is evidence only as a crash.

    A writer's call no candidate answered as expected, which this one crashed on: its
    expected value is no evidence, so the feedback leaves it out.
    """
    return check.source not in TRUSTED and weight == 0 and crash(error)
