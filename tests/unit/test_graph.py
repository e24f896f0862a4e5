"""The swarm graph against the scripted fake server: every path through it, and its bounds."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import asdict
from typing import Any

import pytest

from agents.coder import CODE_GRAMMAR, DOCSTRING_WORDS, PLAIN_STOP
from agents.schemas import AuditReport, ResearchBrief, StageSummary
from agents.test_writer import TestSuite
from app.report import print_call
from app.runner import run_swarm
from graphs import llm
from graphs.coding import _without_stragglers, asks_for_docstrings, plan
from graphs.context import Context
from graphs.endpoints import context_for
from graphs.llm import GRAMMARS, warm_up
from graphs.roles import ROLES
from graphs.state import InputState
from graphs.swarm import graph, later_grammars
from runtime.endpoint import Endpoint
from tests.fakes import FakeOpenAI
from tests.support.graph import chat_bodies, coder_bodies, ctx, run
from tests.support.scripts import (
    BAD_CODE,
    CHECKS,
    GOOD_CODE,
    audit,
    audits,
    brief,
    code,
    suite,
)


async def test_approve_path(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(brief(), code(GOOD_CODE), suite(), *audits())
    state = await run(fake_openai)
    assert state.status == "done", state.error
    report = state.report
    assert report is not None and report.outcome == "approved", report
    assert report.files["solution.py"] == GOOD_CODE
    assert report.tests is not None and report.tests.ok and report.tests.passed == 2
    assert report.revisions == 0 and report.candidates == 1
    nodes = [m.node for m in state.metrics]
    # The statement names is_palindrome: the brief is written beside the code.
    assert sorted(nodes[:3]) == ["coder", "researcher", "test_writer"]
    assert sorted(nodes[3:]) == ["performance_auditor", "security_auditor"]
    assert report.prompt_tokens == sum(m.prompt_tokens for m in state.metrics) > 0
    [body] = coder_bodies(fake_openai)
    # the first candidate is one plain call, as a user makes it: the task verbatim in one user
    # turn, no JSON schema, no grammar; it stops once its first code block closes
    assert len(body["messages"]) == 1 and body["stop"] == list(PLAIN_STOP)
    assert len(PLAIN_STOP) <= 4  # vLLM refuses more (400)
    assert "structured_outputs" not in body and "response_format" not in body
    assert body["messages"][-1]["content"].startswith("Write `add(a, b)`.")  # verbatim


async def test_candidates_are_chosen_by_execution(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(
        brief(),
        code(BAD_CODE),
        code(GOOD_CODE),
        code("def add(a, b):\n    return 5\n"),
        suite(),
        *audits(),
    )
    state = await run(fake_openai, candidates=3)
    report = state.report
    assert report is not None and report.outcome == "approved", report
    assert report.files["solution.py"] == GOOD_CODE and report.candidates == 3
    bodies = coder_bodies(fake_openai)
    # each prompt's greedy answer (the plain one: one user turn, as a user asks; the
    # coder's own: its system prompt first), then a sample of the plain prompt
    sent = sorted((b["temperature"], b["seed"], len(b["messages"])) for b in bodies)
    assert sent == [(0.0, 0, 1), (0.0, 0, 2), (0.4, 2, 1)]
    assert len({json.dumps(b["messages"]) for b in bodies}) == 2  # prompts shared
    assert {a.prompt for a in report.attempts} == {"plain", "system"}
    assert [a.chosen for a in report.attempts].count(True) == 1
    # what each did on the probes is kept (the tie-break's evidence, for offline study)
    assert all(a.observed for a in report.attempts), report.attempts


async def test_no_revision_candidate_may_open_a_docstring_unless_the_task_asks_for_one(
    fake_openai: FakeOpenAI,
) -> None:
    task = 'Write `add(a, b)`: add(2, 3) == 5.\n\ndef add(a, b):\n    """Add a and b."""\n'
    fake_openai.script(brief(), code(BAD_CODE), suite(), *[code(GOOD_CODE)] * 3, *audits())
    state = await run(fake_openai, task=task, candidates=1, revision_candidates=3)
    assert state.report is not None and state.report.outcome == "approved", state.report
    first, *revision = sorted(coder_bodies(fake_openai), key=lambda b: b["seed"])
    # the first round as a user's call asks (its samples vote and write the peer tests)
    assert "bad_words" not in first
    # the revision round's: the repair (guided), the plain sample and the begun stub
    assert len(revision) == 3 and any(b.get("continue_final_message") for b in revision)
    assert any(b.get("structured_outputs") == {"grammar": CODE_GRAMMAR} for b in revision)
    assert all(b["bad_words"] == list(DOCSTRING_WORDS) for b in revision), revision
    # a task that asks for docstrings, or a run that allows them: nothing is banned
    for asked, overrides in (
        (f"{task}Keep a docstring.", {}),
        (task, {"revision_docstrings": True}),
    ):
        fake_openai.reset()
        fake_openai.script(brief(), code(BAD_CODE), suite(), *[code(GOOD_CODE)] * 3, *audits())
        await run(fake_openai, task=asked, candidates=1, revision_candidates=3, **overrides)
        bodies = coder_bodies(fake_openai)
        assert len(bodies) == 4 and [b for b in bodies if "bad_words" in b] == []


async def test_a_first_round_sample_may_not_open_a_docstring_but_the_greedy_answers_may(
    fake_openai: FakeOpenAI,
) -> None:
    stub = 'Write `add(a, b)`:\n\ndef add(a, b):\n    """Add a and b."""\n'
    fake_openai.script(brief(), *[code(GOOD_CODE)] * 4, suite(), *audits())
    state = await run(fake_openai, task=stub, candidates=4, max_revisions=0)
    assert state.report is not None and state.report.outcome == "approved", state.report
    bodies = coder_bodies(fake_openai)
    assert len(bodies) == 4
    banned = {
        (b["temperature"], "stub" if b.get("continue_final_message") else "plain")
        for b in bodies
        if b.get("bad_words") == list(DOCSTRING_WORDS)
    }
    # the samples, of the plain prompt and of the begun stub; not the greedy answers (the
    # plain call's own and the coder prompt's guided one)
    assert banned == {(0.4, "plain"), (0.4, "stub")}
    greedy = [b for b in bodies if b["temperature"] == 0.0]
    assert len(greedy) == 2 and all("bad_words" not in b for b in greedy)
    fake_openai.reset()
    fake_openai.script(brief(), *[code(GOOD_CODE)] * 4, suite(), *audits())
    await run(fake_openai, task=stub, candidates=4, max_revisions=0, sample_docstrings=True)
    assert [b for b in coder_bodies(fake_openai) if "bad_words" in b] == []


def test_a_task_asks_for_docstrings_by_name() -> None:
    assert asks_for_docstrings("Document it with a Docstring.")
    assert asks_for_docstrings("each method gets doc strings")
    assert not asks_for_docstrings("Write `docs(text)` that returns the strings.")


async def test_the_candidates_own_asserts_break_a_tie_the_checks_leave(
    fake_openai: FakeOpenAI,
) -> None:
    # both greedy answers pass the writer's checks but add(1, b) wrongly; the sample ends
    # with a check function of its own whose asserts only it passes in part
    slip = "def add(a, b):\n    return 0 if a == 1 else a + b\n"
    own = GOOD_CODE + "\n\ndef check():\n    assert add(1, 1) == 2\n    assert add(0, 0) == 0\n"
    fake_openai.script(brief(), code(slip), code(slip), code(own), suite(), *audits())
    state = await run(fake_openai, candidates=3)
    report = state.report
    assert report is not None and report.outcome == "approved", report
    assert report.files["solution.py"] == own
    peers = {a.code: a.peers for a in report.attempts}
    assert peers == {slip: [False, True], own: [True, True]}
    # without them the tie goes to the greedy answer
    fake_openai.script(brief(), code(slip), code(slip), code(own), suite(), *audits())
    state = await run(fake_openai, candidates=3, peer_tests=False)
    assert state.report is not None and state.report.files["solution.py"] != own
    assert all(a.peers == [] for a in state.report.attempts)


def test_a_first_round_samples_the_plain_prompt_beside_both_greedy_answers() -> None:
    ctx = Context(seed=7, sample_temperature=0.4)
    assert plan(ctx, 0, 4) == [
        (0.0, 7, "plain"),
        (0.0, 7, "system"),
        (0.4, 9, "plain"),
        (0.4, 10, "stub"),
    ]
    assert plan(ctx, 0, 1) == [(0.0, 7, "plain")]
    # in a project, the stub's greedy answer (begun on the project's imports) comes third
    assert plan(ctx, 0, 4, project=True) == [
        (0.0, 7, "plain"),
        (0.0, 7, "system"),
        (0.0, 7, "stub"),
        (0.4, 10, "plain"),
    ]
    # a revision round: fresh samples only, with failures to repair from or without
    fresh = [(0.8, 1007, "plain"), (0.4, 1008, "stub"), (0.4, 1009, "plain")]
    assert plan(ctx, 1, 3) == plan(ctx, 1, 3, repair=False) == fresh
    # with revision_repair, a round with failures opens with the repair
    repairs = Context(seed=7, sample_temperature=0.4, revision_repair=True)
    assert plan(repairs, 1, 3) == [
        (0.0, 1007, "system"),
        (0.8, 1008, "plain"),
        (0.4, 1009, "stub"),
    ]
    assert plan(repairs, 1, 3, repair=False) == fresh
    wider = Context(seed=7, sample_temperature=0.4, wide_temperature=1.0, revision_repair=True)
    assert [temp for temp, _, _ in plan(wider, 2, 5)] == [0.0, 1.0, 0.4, 0.4, 1.0]
    assert [temp for temp, _, _ in plan(Context(wide_temperature=1.0), 2, 5)] == [
        1.0,
        0.4,
        0.4,
        1.0,
        0.4,
    ]


async def test_a_revision_gets_the_failing_calls(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(brief(), code(BAD_CODE), suite(), code(GOOD_CODE), *audits())
    state = await run(fake_openai, task="Write `add(a, b)`: add(2, 3) == 5.")
    assert state.report is not None and state.report.outcome == "approved", state.report
    assert state.report.revisions == 1
    first, second = coder_bodies(fake_openai)
    revision = second["messages"][-1]["content"]
    assert "`add(2, 3)` returned -1, but it should return 5" in revision
    assert BAD_CODE.strip() in revision and "returned" not in first["messages"][-1]["content"]


async def test_a_revision_round_is_one_repair_and_fresh_plain_samples_some_wider(
    fake_openai: FakeOpenAI,
) -> None:
    fake_openai.script(
        brief(), code(BAD_CODE), suite(), code(BAD_CODE), code(GOOD_CODE), code(BAD_CODE), *audits()
    )
    task = "Write `add(a, b)`: add(2, 3) == 5."
    state = await run(fake_openai, task=task, max_revisions=1, revision_candidates=3)
    report = state.report
    assert report is not None and report.outcome == "approved", report
    assert report.files["solution.py"] == GOOD_CODE
    # the round's calls go out at once, in any order: by seed
    first, repair, *fresh = sorted(coder_bodies(fake_openai), key=lambda b: b["seed"])
    assert (repair["temperature"], repair["seed"]) == (0.0, 1000)
    assert "returned -1, but it should return 5" in repair["messages"][-1]["content"]
    # the samples are new draws of the first round's plain prompt (the task verbatim), the
    # first one wider, then of the stub prompt: the plain prompt with the answer begun
    assert [(b["temperature"], b["seed"]) for b in fresh] == [(0.8, 1001), (0.4, 1002)]
    assert fresh[0]["messages"] == first["messages"], fresh
    assert fresh[1]["messages"][:-1] == first["messages"]
    assert fresh[1]["messages"][-1] == {
        "role": "assistant",
        "content": "```python\ndef add(a, b):\n",
    }
    assert fresh[1]["continue_final_message"] and not fresh[1]["add_generation_prompt"]
    assert "continue_final_message" not in fresh[0]
    assert first["messages"][-1]["content"].startswith(task)


async def test_by_default_a_revision_round_is_fresh_samples_only(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(code(BAD_CODE), suite(), code(BAD_CODE), code(GOOD_CODE), *audits())
    task = "Write `add(a, b)`: add(2, 3) == 5."
    state = await run(
        fake_openai, task=task, revision_candidates=2, revision_repair=False, parallel_brief=False
    )
    report = state.report
    assert report is not None and report.outcome == "approved", report
    assert report.revisions == 1 and report.files["solution.py"] == GOOD_CODE
    first, *fresh = sorted(coder_bodies(fake_openai), key=lambda b: b["seed"])
    # no repair: nothing of the failing calls or the earlier code reaches the round
    assert [(b["temperature"], b["seed"]) for b in fresh] == [(0.8, 1000), (0.4, 1001)]
    assert fresh[0]["messages"] == first["messages"]
    assert all("returned -1" not in str(b["messages"]) for b in fresh)


async def test_a_worse_revision_never_replaces_the_best(fake_openai: FakeOpenAI) -> None:
    half = "def add(a, b):\n    return 5 if a == 2 else a - b\n"
    fake_openai.script(brief(), code(half), suite(), code(BAD_CODE), *audits())
    state = await run(fake_openai, task="Write `add(a, b)`: add(-1, 1) == 0.", max_revisions=1)
    report = state.report
    assert report is not None and report.outcome == "unresolved"
    assert report.files["solution.py"] == half and report.revisions == 1
    assert "checks still fail" in report.reason


async def test_a_check_no_candidate_agrees_with_does_not_block(fake_openai: FakeOpenAI) -> None:
    wrong = [*CHECKS, {"call": "add(2, 2)", "expected": "5"}]
    fake_openai.script(brief(), code(GOOD_CODE), code(GOOD_CODE), suite(wrong), *audits())
    state = await run(fake_openai, candidates=2, max_revisions=0)
    report = state.report
    assert report is not None and report.outcome == "approved", report
    assert any(line.startswith("FAIL [writer] add(2, 2)") for line in report.checks)


async def test_only_wrong_writer_checks_say_so_instead_of_that_none_ran(
    fake_openai: FakeOpenAI,
) -> None:
    """Seen on `edgeswarm run "Write count_vowels(text) ..."`: the writer's two checks were
    wrong ('Hello World' has 3 vowels, not 5), every candidate returned 3, and the report
    said no check could be run, beside "tests: 0 passed, 2 failed"."""
    wrong = [{"call": "add(2, 2)", "expected": "5"}, {"call": "add(1, 1)", "expected": "3"}]
    fake_openai.script(brief(), code(GOOD_CODE), code(GOOD_CODE), suite(wrong), *audits())
    state = await run(fake_openai, task="Write add(a, b), the sum.", candidates=2)
    report = state.report
    assert report is not None and report.outcome == "unresolved", report
    assert report.reason == (
        "the task shows no example of its own, and the test writer's 2 check(s) fail on most "
        "candidates, so they may be wrong themselves: the code is unverified"
    )
    assert report.files["solution.py"] == GOOD_CODE


async def test_candidates_that_differ_under_an_unsupported_check_search_on(
    fake_openai: FakeOpenAI,
) -> None:
    # Both fail add(2, 2) == 5 (nobody passes it: nothing to repair from) but they do not do
    # the same: one more round of fresh samples of the plain prompt, with no feedback.
    odd = "def add(a, b):\n    return 0 if (a, b) == (2, 2) else a + b\n"
    wrong = [*CHECKS, {"call": "add(2, 2)", "expected": "5"}]
    fake_openai.script(
        brief(),
        code(GOOD_CODE),
        code(odd),
        suite(wrong),
        code(GOOD_CODE),
        code(GOOD_CODE),
        *audits(),
    )
    state = await run(fake_openai, candidates=2, max_revisions=1, revision_candidates=2)
    report = state.report
    assert report is not None and report.outcome == "approved", report
    assert report.revisions == 1 and report.candidates == 4
    first, _, *fresh = sorted(
        coder_bodies(fake_openai), key=lambda b: (b["seed"], len(b["messages"]))
    )
    assert [(b["temperature"], b["seed"]) for b in fresh] == [(0.8, 1000), (0.4, 1001)]
    assert fresh[0]["messages"] == first["messages"] == fresh[1]["messages"][:-1], fresh
    assert "returned" not in json.dumps(fresh)


async def test_by_default_differing_candidates_under_an_unsupported_check_end_the_run(
    fake_openai: FakeOpenAI,
) -> None:
    # As above, but with Context.search_rounds at its default (off): no fresh samples.
    odd = "def add(a, b):\n    return 0 if (a, b) == (2, 2) else a + b\n"
    wrong = [*CHECKS, {"call": "add(2, 2)", "expected": "5"}]
    fake_openai.script(brief(), code(GOOD_CODE), code(odd), suite(wrong), *audits())
    state = await run(fake_openai, candidates=2, max_revisions=1, search_rounds=False)
    report = state.report
    assert report is not None and report.revisions == 0 and report.candidates == 2, report
    assert report.files["solution.py"] == GOOD_CODE
    assert len(coder_bodies(fake_openai)) == 2


async def test_alike_candidates_under_an_unsupported_check_do_not_search(
    fake_openai: FakeOpenAI,
) -> None:
    wrong = [*CHECKS, {"call": "add(2, 2)", "expected": "5"}]
    fake_openai.script(brief(), code(GOOD_CODE), code(GOOD_CODE), suite(wrong), *audits())
    state = await run(fake_openai, candidates=2, max_revisions=1)
    assert state.report is not None and state.report.revisions == 0, state.report


async def test_an_auditor_without_evidence_does_not_block(fake_openai: FakeOpenAI) -> None:
    high = [{"severity": "high", "title": "eval on input", "detail": "use ast.literal_eval"}]
    fake_openai.script(
        brief(), code(GOOD_CODE), suite(), audit("security", "revise", high), audit("performance")
    )
    state = await run(fake_openai)
    report = state.report
    assert report is not None and report.outcome == "approved", report
    [finding] = report.findings
    assert finding.title == "eval on input" and finding.evidence is False


async def test_bandit_evidence_sends_the_code_back(fake_openai: FakeOpenAI) -> None:
    unsafe = "def add(a, b):\n    return eval(str(a) + '+' + str(b))\n"
    fake_openai.script(brief(), code(unsafe), suite(), *audits(), code(GOOD_CODE), *audits())
    state = await run(fake_openai)
    report = state.report
    assert report is not None and report.outcome == "approved", report
    assert report.revisions == 1 and report.files["solution.py"] == GOOD_CODE
    revision = coder_bodies(fake_openai)[1]["messages"][-1]["content"]
    assert "B307" in revision  # bandit's finding is the feedback


async def test_the_statement_examples_check_without_a_test_writer(fake_openai: FakeOpenAI) -> None:
    stub = 'def add(a, b):\n    """Sum.\n\n    >>> add(2, 3)\n    5\n    """\n'
    bad_suite = {"schema": "TestSuite", "content": "nope"}
    fake_openai.script(
        brief(), code(BAD_CODE), bad_suite, bad_suite, bad_suite, code(GOOD_CODE), *audits()
    )
    state = await run(fake_openai, task=stub)
    report = state.report
    assert report is not None and report.outcome == "approved", report
    assert report.checks == ["PASS [statement] add(2, 3) == 5"]


@pytest.mark.parametrize(
    "task", ["What is a Python decorator?", "Write a script that prints the date."]
)
async def test_a_task_without_a_function_ends_clearly(fake_openai: FakeOpenAI, task: str) -> None:
    fake_openai.script(
        brief(kind="other", entry_point="none"),
        code("import datetime\n\nnow = datetime.date.today()\n"),
        {
            "schema": "TestSuite",
            "content": json.dumps({"checks": [{"call": "x", "expected": "1"}]}),
        },
        *audits(),
    )
    state = await run(fake_openai, task=task)
    report = state.report
    assert state.status == "done" and report is not None
    assert report.outcome == "unresolved" and "names no function or class" in report.reason
    assert report.files["solution.py"].startswith("import datetime")


async def test_a_cut_off_candidate_is_retried_larger(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(
        brief(),
        # cut inside its code block (a plain answer whose block was closed keeps its code)
        {
            "schema": "",
            "content": "```python\ndef add(a, b):\n    return",
            "finish_reason": "length",
            "completion_tokens": 5,
        },
        code(GOOD_CODE, completion_tokens=40),
        suite(),
        *audits(),
    )
    state = await run(fake_openai)
    assert state.report is not None and state.report.outcome == "approved", state.report
    first, second = (b["max_completion_tokens"] for b in coder_bodies(fake_openai))
    assert second > first
    [coder] = [m for m in state.metrics if m.node == "coder"]
    assert coder.attempts == 2 and coder.ok


CUT = {"schema": "", "content": "```python\ndef add(a, b):\n    return", "finish_reason": "length"}
"""A plain answer cut at its budget inside its code block."""


async def test_a_failed_candidate_with_siblings_gets_no_second_chance(
    fake_openai: FakeOpenAI,
) -> None:
    fake_openai.script(
        brief(),
        {**CUT, "contains": "Reply with the complete Python code"},  # the plain greedy
        code(GOOD_CODE),  # the coder prompt's greedy
        suite(),
        *audits(),
    )
    state = await run(fake_openai, candidates=2)
    assert state.report is not None and state.report.outcome == "approved", state.report
    # the others stand in: no larger budget, no fallback model, the round waits for no retry
    bodies = coder_bodies(fake_openai)
    assert len(bodies) == 2 and {b["model"] for b in bodies} == {"big"}
    assert len({b["max_completion_tokens"] for b in bodies}) == 1


async def test_when_every_candidate_failed_one_gets_the_whole_policy(
    fake_openai: FakeOpenAI,
) -> None:
    fake_openai.script(brief(), CUT, CUT, CUT, code(GOOD_CODE), suite(), *audits())
    state = await run(fake_openai, candidates=2)
    assert state.report is not None and state.report.outcome == "approved", state.report
    *round_, retry, larger = coder_bodies(fake_openai)
    assert len(round_) == 2 and retry["seed"] == 0 and len(retry["messages"]) == 1  # plain
    assert larger["messages"] == retry["messages"]
    assert larger["max_completion_tokens"] > retry["max_completion_tokens"]


async def test_failing_node_ends_the_run_with_reason(fake_openai: FakeOpenAI) -> None:
    bad = {"schema": "ResearchBrief", "content": "nope"}
    fake_openai.script(bad, bad, bad)
    # No name in the statement: the coder waits for the brief's entry point.
    state = await run(fake_openai, task="Write a function that adds two numbers.")
    assert state.status == "failed"
    assert state.error is not None and state.error.startswith("researcher:")
    assert state.report is not None and state.report.outcome == "failed"
    assert coder_bodies(fake_openai) == []
    [failed] = state.metrics  # the failed call is measured like a successful one
    assert failed.node == "researcher" and not failed.ok and failed.attempts == 3
    assert failed.model == "small" and failed.seconds > 0


async def test_the_brief_beside_the_code_fails_the_run_too(fake_openai: FakeOpenAI) -> None:
    bad = {"schema": "ResearchBrief", "content": "nope"}
    fake_openai.script(bad, bad, bad, code(GOOD_CODE), suite())
    state = await run(fake_openai)  # names add: researcher, coder and test writer at once
    assert state.status == "failed"
    assert state.error is not None and state.error.startswith("researcher:"), state.error
    assert state.report is not None and state.report.outcome == "failed"
    assert len(coder_bodies(fake_openai)) == 1
    assert not [m for m in state.metrics if m.node.endswith("auditor")]


async def test_two_branches_failing_in_one_step_keep_both_reasons(
    fake_openai: FakeOpenAI,
) -> None:
    bad_brief = {"schema": "ResearchBrief", "content": "nope"}
    fake_openai.script(bad_brief, bad_brief, bad_brief, suite())  # and no code block at all
    state = await run(fake_openai)
    assert state.status == "failed" and state.error is not None
    assert "researcher:" in state.error and "coder:" in state.error, state.error


async def test_beside_the_code_the_researcher_asks_no_model(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(code(GOOD_CODE), suite(), *audits())
    # names add, no workspace or database: nothing to look up, no entry point to find
    state = await run(fake_openai, task="Write `add(a, b)`: add(2, 3) == 5.", parallel_brief=False)
    assert state.report is not None and state.report.outcome == "approved", state.report
    assert chat_bodies(fake_openai, "ResearchBrief") == []
    assert "researcher" not in [m.node for m in state.metrics]
    assert state.report.summary == ""  # no brief: no "task as understood"
    # the researcher still read the statement's own check, which the candidate passed
    assert "PASS [statement] add(2, 3) == 5" in state.report.checks, state.report.checks


async def test_parallel_brief_asks_for_the_brief_beside_the_code(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(brief(), code(GOOD_CODE), suite(), *audits())
    state = await run(fake_openai, parallel_brief=True)
    assert state.report is not None and state.report.outcome == "approved", state.report
    assert len(chat_bodies(fake_openai, "ResearchBrief")) == 1
    assert state.report.summary == "Add two numbers."


async def test_a_statement_without_a_name_writes_the_brief_first(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(brief(), code(GOOD_CODE), suite(), *audits())
    state = await run(fake_openai, task="Write a function that adds two numbers.")
    assert state.report is not None and state.report.outcome == "approved", state.report
    nodes = [m.node for m in state.metrics]
    assert nodes[0] == "researcher" and sorted(nodes[1:3]) == ["coder", "test_writer"]


async def test_a_failed_coder_keeps_the_cost_of_the_nodes_before(fake_openai: FakeOpenAI) -> None:
    bad = {"schema": "", "content": "nope", "completion_tokens": 2}
    fake_openai.script(brief(), bad, bad, bad, suite())
    state = await run(fake_openai)
    assert state.status == "failed" and state.error is not None
    assert sorted((m.node, m.ok) for m in state.metrics) == [
        ("coder", False),
        ("researcher", True),
        ("test_writer", True),
    ]
    [coder] = [m for m in state.metrics if m.node == "coder"]
    assert coder.attempts == 3 and coder.seconds > 0


async def test_prompts_stay_bounded_as_revisions_grow(fake_openai: FakeOpenAI) -> None:
    long_failure = "def add(a, b):\n    raise ValueError('x' * 5000)\n"
    fake_openai.script(brief(), suite(), *([code(long_failure)] * 4), *audits())
    state = await run(fake_openai, task="Write `add(a, b)`: add(2, 3) == 5.", max_revisions=3)
    assert state.report is not None and state.report.revisions == 3
    sizes = [len(json.dumps(body["messages"])) for body in coder_bodies(fake_openai)]
    assert len(sizes) == 4
    assert max(sizes[1:]) - min(sizes[1:]) < 200  # revisions 1..3 cost the same
    assert max(sizes) < 9000  # and stay under a fixed bound, whatever the history
    for body in chat_bodies(fake_openai):
        if "response_format" in body:
            assert body["response_format"]["json_schema"]["strict"] is True
        assert not any(key.startswith("guided_") for key in body)


async def test_a_stalled_call_goes_straight_to_the_fallback(fake_openai: FakeOpenAI) -> None:
    fake_openai.script({**brief(), "delay_s": 3}, brief(), code(GOOD_CODE), suite(), *audits())
    state = await run(fake_openai, call_idle_s=1.0)
    assert state.status == "done", state.error
    researcher_calls = chat_bodies(fake_openai, "ResearchBrief")
    assert [body["model"] for body in researcher_calls] == ["big", "small"]
    [stalled] = [m for m in state.metrics if m.node == "researcher"]
    assert stalled.cut == "stalled" and stalled.model == "small"


async def test_a_call_streaming_far_past_its_idle_limit_is_never_cut(
    fake_openai: FakeOpenAI,
) -> None:
    slow = code(GOOD_CODE, piece_s=0.12)  # 11 pieces: about 1.3 s of streaming
    fake_openai.script(brief(), slow, suite(), *audits())
    state = await run(fake_openai, call_idle_s=0.5)
    assert state.report is not None and state.report.outcome == "approved", state.error
    [coder] = [m for m in state.metrics if m.node == "coder"]
    assert coder.seconds > 1.0 and coder.ok and not coder.cut


async def test_the_run_budget_keeps_what_a_cut_candidate_streamed(fake_openai: FakeOpenAI) -> None:
    """Cut at the budget after its block closed: the code still competes, and wins."""
    rambling = f"```python\n{GOOD_CODE}```\n" + "It adds the two numbers. " * 40
    fake_openai.script(brief(), {"schema": "", "content": rambling, "piece_s": 0.05}, suite())
    fake_openai.script(*audits())
    started = time.monotonic()
    state = await run(fake_openai, run_budget_s=2.5, call_idle_s=30.0)
    assert time.monotonic() - started < 30  # the rambling answer alone streams for 14 s
    assert state.report is not None and state.report.outcome == "approved", state.error
    assert state.report.files["solution.py"] == GOOD_CODE
    [coder] = [m for m in state.metrics if m.node == "coder"]
    assert (coder.cut, coder.streaming, coder.kept) == ("budget", True, True)


async def test_empty_task_fails_without_a_request(fake_openai: FakeOpenAI) -> None:
    out = await graph.ainvoke(InputState(task="  "), context=ctx(fake_openai), version="v2")
    assert out.value.status == "failed" and "empty" in (out.value.error or "")
    assert fake_openai.requests() == []


async def test_gateway_lease_is_asked_before_each_call(
    fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every model call leases its model first (on the run's endpoint, with its key), and the
    lease's wait is the call's swap wait; with ``lease_models`` off, none is asked."""
    leases: list[tuple[str, str, str | None]] = []

    async def lease(_http: object, base_url: str, model: str, api_key: str | None = None) -> float:
        leases.append((base_url, model, api_key))
        return 1.5  # a swap the gateway made the call wait for

    monkeypatch.setattr(llm, "lease_model", lease)
    fake_openai.script(brief(), code(GOOD_CODE), suite(), *audits())
    state = await run(fake_openai, api_key="k3y")
    assert state.status == "done"
    bodies = fake_openai.requests()
    assert len(bodies) == 5  # brief, candidate, checks, two audits
    assert sorted(model for _, model, _ in leases) == sorted(b["model"] for b in bodies)
    assert {(url, key) for url, _, key in leases} == {(fake_openai.base_url, "k3y")}
    calls = [m for m in state.metrics if m.model]
    assert len(calls) == 5 and all(m.swap_wait_s == 1.5 for m in calls)
    leases.clear()
    fake_openai.script(brief(), code(GOOD_CODE), suite(), *audits())
    assert (await run(fake_openai, lease_models=False)).status == "done"
    assert leases == []


def test_graph_shape() -> None:
    """The graph's nodes and every edge: fixed ones (a join waits for both auditors) and
    routed ones; and every routing node can send a failed run to ``finish``."""
    drawn = graph.get_graph()
    assert graph.name == "swarm"
    steps = {
        "setup", "researcher", "summarize_brief", "coder", "test_writer", "run_tests",
        "gather_evidence", "security_auditor", "performance_auditor", "decide", "finish",
    }  # fmt: skip
    assert steps <= set(drawn.nodes)
    fixed = {(e.source, e.target) for e in drawn.edges if not e.conditional}
    assert fixed == {
        ("__start__", "setup"),
        ("coder", "run_tests"),
        ("test_writer", "run_tests"),
        ("security_auditor", "decide"),
        ("performance_auditor", "decide"),
        ("finish", "__end__"),
    }
    routed: dict[str, set[str]] = {}
    for edge in drawn.edges:
        if edge.conditional:
            routed.setdefault(edge.source, set()).add(edge.target)
    assert routed == {
        "setup": {"researcher", "coder", "test_writer", "finish"},
        "researcher": {"summarize_brief", "finish", "__end__"},  # __end__: beside the coder
        "summarize_brief": {"coder", "test_writer", "finish"},
        "run_tests": {"coder", "gather_evidence", "finish"},
        "gather_evidence": {"security_auditor", "performance_auditor", "finish"},
        "decide": {"coder", "finish"},
    }
    assert all("finish" in targets for targets in routed.values())


@pytest.mark.parametrize("task", ["", "x" * 9000])
async def test_bad_tasks(fake_openai: FakeOpenAI, task: str) -> None:
    out = await graph.ainvoke(InputState(task=task), context=ctx(fake_openai), version="v2")
    assert out.value.status == "failed"


@pytest.mark.parametrize(
    ("context", "message"),
    [
        ({"no_such_role_model": "big"}, "Context has no field no_such_role_model"),
        ({"coder_model": ""}, "coder_model must be a model name"),
        ({"fallback_model": "a\nb"}, "fallback_model must be a model name, not 'a\\nb' or null"),
        ({"max_revisions": -1}, "max_revisions must be a whole number, zero or more, not -1"),
        ({"resend_backoff_s": "1"}, "resend_backoff_s must be a number, zero or more, not '1'"),
        ({"call_idle_s": 0}, "call_idle_s must be a positive number, not 0"),
        ({"coder_tokens": 0}, "coder_tokens must be a positive whole number of tokens or null"),
        ({"auditor_temperature": 3}, "auditor_temperature must be between 0 and 2, not 3"),
        ({"prompt_layout": "x"}, "prompt_layout must be one of stable_first, variable_first"),
        ({"base_url": "localhost:8000"}, "base_url must be an http(s) URL"),
    ],
)
async def test_an_unusable_context_is_refused_naming_the_field(
    fake_openai: FakeOpenAI, context: dict[str, Any], message: str
) -> None:
    """What Studio and the API pass as the run's context is checked before any node runs."""
    with pytest.raises((TypeError, ValueError)) as raised:
        await graph.ainvoke(
            InputState(task="add two numbers"),
            context={"base_url": fake_openai.base_url, **context},  # type: ignore[call-overload]
            version="v2",
        )
    assert message in str(raised.value)
    assert fake_openai.requests() == []


async def test_warm_up_sends_each_agent_grammar_once_with_one_token(
    fake_openai: FakeOpenAI,
) -> None:
    context = Context(**{**asdict(ctx(fake_openai)), "auditor_model": "small"})
    seconds = await warm_up(context)  # unscripted: the fake's default answers
    assert set(seconds) == {
        f"{spec.name}:{schema.__name__ if schema else 'code'}"
        for spec in ROLES
        for schema in spec.schemas
    }
    bodies = fake_openai.requests()
    assert all(b["max_completion_tokens"] == 1 for b in bodies)
    names = sorted(
        str(b.get("response_format", {}).get("json_schema", {}).get("name")) for b in bodies
    )
    assert names == sorted(str(s.__name__ if s else None) for r in ROLES for s in r.schemas)
    [code_body] = [b for b in bodies if "response_format" not in b]
    assert code_body["structured_outputs"] == {"grammar": CODE_GRAMMAR}
    assert {b["model"] for b in bodies} == {"big", "small"}


async def test_a_run_that_warms_up_still_gets_its_own_answers(fake_openai: FakeOpenAI) -> None:
    # the fake answers the warm-up request from the script too: one more audit
    fake_openai.script(brief(), code(GOOD_CODE), suite(), *audits(), audit("security"))
    state = await run_swarm(InputState(task="Write `add(a, b)`."), ctx(fake_openai, warm_up=True))
    assert state.report is not None and state.report.outcome == "approved", state.report
    # only the grammars of later steps: the brief, the checks and the code start at once,
    # and no lookups to summarize; every other role's (the auditors')
    early = {ResearchBrief, TestSuite, None, StageSummary}
    later = [s.__name__ for _, s in GRAMMARS if s not in early and s is not None]
    warm = [b for b in fake_openai.requests() if b["max_completion_tokens"] == 1]
    assert [b["response_format"]["json_schema"]["name"] for b in warm] == later
    assert "AuditReport" in later


def test_a_run_warms_up_only_the_grammars_of_its_later_steps() -> None:
    # the researcher's brief is the first step; no lookups: nothing to summarize
    later = later_grammars(InputState(task="Write a function that adds."))
    first = {("researcher", ResearchBrief), ("summarizer", StageSummary)}
    assert later == [grammar for grammar in GRAMMARS if grammar not in first]
    assert {("researcher", TestSuite), ("coder", None), ("auditor", AuditReport)} <= set(later)
    lookups = later_grammars(InputState(task="Write `add(a, b)`.", database="shop.db"))
    assert ("summarizer", StageSummary) in lookups and ("coder", None) in lookups


def test_servers_edgeswarm_started_are_warmed_up_and_others_are_not() -> None:
    owned = Endpoint("http://127.0.0.1:1/v1", "m", owned=True)
    theirs = Endpoint("http://127.0.0.1:1/v1", "m")
    assert context_for(owned, []).warm_up and not context_for(theirs, []).warm_up
    assert not context_for(owned, [], warm_up=False).warm_up


async def _answer_after(seconds: float, value: str) -> str:
    await asyncio.sleep(seconds)
    if value == "error":
        raise ValueError("no block")
    return value


async def test_a_sampled_candidate_still_writing_long_after_the_greedy_is_dropped() -> None:
    started = time.monotonic()
    calls = [
        _answer_after(0.2, "greedy"),
        _answer_after(0.1, "quick"),
        _answer_after(0.3, "error"),
        _answer_after(30, "looping"),
    ]
    answers = await _without_stragglers(calls, 1.0)
    assert answers[:2] == ["greedy", "quick"] and answers[3] is None
    assert isinstance(answers[2], ValueError)
    assert time.monotonic() - started < 5


async def test_the_greedy_candidate_is_always_awaited_and_none_waits_for_all() -> None:
    calls = [_answer_after(0.3, "greedy"), _answer_after(0.5, "slow")]
    assert await _without_stragglers(calls, 0.0) == ["greedy", None]
    calls = [_answer_after(0.1, "greedy"), _answer_after(0.5, "slow")]
    assert await _without_stragglers(calls, None) == ["greedy", "slow"]
    # a greedy call that failed leaves the others all the time they need
    calls = [_answer_after(0.01, "error"), _answer_after(0.5, "slow")]
    failed, slow = await _without_stragglers(calls, 0.0)
    assert isinstance(failed, ValueError) and slow == "slow"


async def test_each_model_call_goes_out_on_the_custom_stream_as_it_ends(
    fake_openai: FakeOpenAI, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_openai.script(brief(), code(GOOD_CODE), suite(), *audits())
    events: list[Any] = []

    def seen(event: Any) -> None:
        events.append(event)
        print_call(event)

    state = await run_swarm(InputState(task="Write `add(a, b)`."), ctx(fake_openai), on_call=seen)
    assert state.report is not None and state.report.outcome == "approved"
    assert sorted(e["node"] for e in events) == sorted(m.node for m in state.metrics)
    assert all(e["event"] == "call" and e["model"] == "big" and e["ok"] for e in events)
    coder = next(e for e in events if e["node"] == "coder")
    assert coder["completion_tokens"] > 0 and coder["seconds"] >= 0
    err = capsys.readouterr().err
    assert "[coder] big: " in err and " tokens, " in err and "swap wait" in err
