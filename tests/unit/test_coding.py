"""graphs/coding.py's pure parts: which candidate is kept, what is revised, whether a round
runs; and candidates keyed by id in the state, also for runs checkpointed before."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langgraph.graph import END, START, StateGraph

from agents.coder import checks_end, module_end, statement_end
from graphs.coding import Choice, RoundTails, choose, next_round
from graphs.llm import candidate_end
from graphs.state import Candidate, State
from tools.check_runner import Check, Verdict

CHECKS = [Check("add(2, 3)", "5", "statement"), Check("add(0, 0)", "0", "writer")]


def candidate(id: str, *oks: bool, greedy: bool = False, gate: str = "") -> Candidate:
    verdicts = [Verdict(ok, got="5" if ok else "6") for ok in oks]
    code = f"def add(a, b):  # {id}\n    return a + b\n"
    return Candidate(
        code=code, revision=0, greedy=greedy, seed=0, gate=gate, verdicts=verdicts, id=id
    )


def test_the_candidate_that_passes_every_check_is_kept_whatever_its_position() -> None:
    wrong = candidate("c0", False, True, greedy=True)
    right = candidate("c1", True, True)
    for done in ([wrong, right], [right, wrong]):
        choice = choose(CHECKS, done)
        assert choice.best is right
        assert choice.failing == [] and choice.problems == ""
        assert not choice.wants_another_round


def test_a_supported_failure_is_what_the_next_round_repairs() -> None:
    # every candidate fails the statement's own example: evidence no model wrote
    done = [candidate("c0", False, True, greedy=True), candidate("c1", False, True)]
    choice = choose(CHECKS, done)
    assert choice.best is not None and choice.best.id == "c0"  # the greedy one wins the tie
    assert choice.failing == [0] and choice.must == [0, 1]
    assert "`add(2, 3)` returned 6, but it should return 5" in choice.problems
    assert choice.wants_another_round


def test_a_blocked_candidate_ranks_after_every_other() -> None:
    first, second = candidate("c0", True, True, greedy=True), candidate("c1", True, True)
    assert choose(CHECKS, [first, second]).best is first
    assert choose(CHECKS, [first, second], blocked={"c0"}).best is second


def test_with_nothing_that_runs_the_greedy_one_stands_and_nothing_is_revised() -> None:
    sampled = candidate("c0", gate="syntax error (line 1)")
    greedy = candidate("c1", greedy=True, gate="no function add")
    choice = choose(CHECKS, [sampled, greedy])
    assert choice.best is greedy and choice.problems == "- no function add"
    assert not choice.wants_another_round
    nothing = choose(CHECKS, [])
    assert nothing == Choice(None, problems="- no candidate was written")


def test_a_round_runs_only_with_work_a_round_left_and_budget() -> None:
    work = Choice(candidate("c0", False), failing=[0])
    assert next_round(work, revision=0, max_revisions=1, budget_spent=False)
    assert not next_round(work, revision=1, max_revisions=1, budget_spent=False)
    assert not next_round(work, revision=0, max_revisions=1, budget_spent=True)
    done = Choice(candidate("c0", True))
    assert not next_round(done, revision=0, max_revisions=1, budget_spent=False)
    search = Choice(candidate("c0", False), search=True)
    assert next_round(search, revision=0, max_revisions=2, budget_spent=False)
    # a round that would only search runs only with Context.search_rounds (off by default)
    assert not next_round(search, revision=0, max_revisions=2, budget_spent=False, search=False)
    assert next_round(work, revision=0, max_revisions=1, budget_spent=False, search=False)


def legacy(n: int) -> list[Candidate]:
    """Candidates as a run checkpointed before ids stored them: no id."""
    return [Candidate(code=f"# {i}\n", revision=0, greedy=i == 0, seed=i) for i in range(n)]


def test_a_state_from_before_ids_keys_its_candidates_by_position() -> None:
    written = legacy(4)
    positions: Any = {"best": 1, "blocked": [0]}  # as such a checkpoint stores them
    state = State(task="t", candidates=written, scored=written[:3], **positions)
    assert [c.id for c in state.candidates] == ["c0", "c1", "c2", "c3"]
    assert [c.id for c in state.scored] == ["c0", "c1", "c2"]
    assert state.best == "c1" and state.blocked == ["c0"]
    chosen = state.chosen()
    assert chosen is not None and chosen.code == "# 1\n"
    keyed = State(task="t", candidates=state.candidates, best="c2")
    assert keyed.candidates == state.candidates and keyed.chosen() is None  # not scored yet


def test_a_node_sees_the_old_positions_as_ids() -> None:
    """LangGraph builds each node's State from its channels: the keys hold there too."""
    seen: dict[str, Any] = {}

    def look(state: State) -> dict[str, Any]:
        chosen = state.chosen()
        seen.update(best=state.best, code=chosen.code if chosen else None)
        return {}

    builder = StateGraph(State)
    builder.add_node("look", look)
    builder.add_edge(START, "look")
    builder.add_edge("look", END)
    written = legacy(3)
    old: Any = {"task": "t", "candidates": written, "scored": written, "best": 2}
    builder.compile().invoke(old)
    assert seen == {"best": "c2", "code": "# 2\n"}


TAIL = "```python\ndef f():\n    return 1\n\n# Check\ndef check_f():\n    assert f() == 1\n"


async def test_self_checks_end_once_no_candidate_of_the_round_writes_code() -> None:
    tails = RoundTails(3)
    # a revision round's answers end at their module; a first round's may write self-checks
    assert candidate_end(1) is module_end and candidate_end(0) is checks_end
    assert tails.ending(1, module_end) is module_end
    greedy = tails.ending(0, checks_end)
    # its module is not finished: nothing ends; then the others still write code: it writes on
    assert greedy("```python\ndef f():\n", "") is None
    assert greedy(TAIL, "") is None
    # one answered, the other failed: what it wrote of its self-checks is kept
    assert await tails.tracked(1, asyncio.sleep(0, "answer")) == "answer"
    with pytest.raises(RuntimeError):
        await tails.tracked(2, _fails())
    assert greedy(TAIL + "    assert f(", "") == statement_end(TAIL + "    assert f(") == len(TAIL)
    # its own self-checks' end still ends it first
    called = TAIL + "\ncheck_f()\n"
    assert greedy(called, "") == checks_end(called)


async def _fails() -> None:
    raise RuntimeError("no answer")
