"""The benchmark baselines: runs without context pruning, and with the variable part first."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from agents import prompts
from agents.researcher import researcher_messages
from graphs.context import Context
from graphs.state import HISTORY_ATTEMPTS, InputState, OutputState, append_history
from graphs.swarm import graph
from tests.conftest import FakeOpenAI
from tests.unit.test_graph import (
    GOOD_CODE,
    audit,
    brief,
    chat_bodies,
    code,
    ctx,
    round_steps,
    run,
    summary,
)
from tests.unit.test_research_lookups import plan
from tests.unit.test_structured import BRIEF

# Three different wrong answers to add(2, 3) == 5, one per round.
WRONG = [f"def add(a, b):\n    return a {op} b\n" for op in ("-", "*", "//")]


def raw_round(source: str) -> list[dict[str, Any]]:
    """One round without the summarizer: code, then both auditors."""
    return [code(source), audit("security"), audit("performance")]


def coder_prompts(fake: FakeOpenAI) -> list[str]:
    return [body["messages"][-1]["content"] for body in chat_bodies(fake, "CodeSubmission")]


def sizes(fake: FakeOpenAI, schema: str) -> list[int]:
    return [len(json.dumps(body["messages"])) for body in chat_bodies(fake, schema)]


def schema_of(body: dict[str, Any]) -> str:
    name: str = body["response_format"]["json_schema"]["name"]
    return name


async def decide_updates(fake: FakeOpenAI, **overrides: Any) -> list[dict[str, Any]]:
    """What the decide node wrote, round by round."""
    updates: list[dict[str, Any]] = []
    async for chunk in graph.astream(
        InputState(task="add two numbers"), context=ctx(fake, **overrides), stream_mode="updates"
    ):
        if "decide" in chunk:
            updates.append(chunk["decide"])
    return updates


# --- context_pruning=False ------------------------------------------------------------------


async def test_unpruned_run_skips_the_summarizers_and_hands_over_raw_material(
    fake_openai: FakeOpenAI,
) -> None:
    fake_openai.script(brief(), *raw_round(WRONG[0]), *raw_round(WRONG[1]), *raw_round(WRONG[2]))
    state = await run(fake_openai, context_pruning=False, max_revisions=2)
    assert state.status == "done", state.error
    assert state.report is not None and state.report.outcome == "unresolved"
    assert state.report.revisions == 2
    assert chat_bodies(fake_openai, "StageSummary") == []
    assert not [m for m in state.metrics if m.node.startswith("summarize")]
    first = coder_prompts(fake_openai)[0]
    # The raw brief, not clipped to handover_chars: every requirement and test case is there.
    assert all(requirement in first for requirement in BRIEF["requirements"])
    assert all(case["call"] in first for case in BRIEF["test_cases"])
    # The auditors get the brief, the coder's note and the test output itself.
    auditor_prompt = chat_bodies(fake_openai, "AuditReport")[0]["messages"][-1]["content"]
    assert "Coder's note: adds two numbers" in auditor_prompt
    assert "Tests: 0 passed, 1 failed" in auditor_prompt
    assert "Test output:" in auditor_prompt and "RESULT passed=0 failed=1" in auditor_prompt


async def test_unpruned_coder_gets_every_earlier_attempt_and_prompts_grow(
    fake_openai: FakeOpenAI,
) -> None:
    fake_openai.script(brief(), *raw_round(WRONG[0]), *raw_round(WRONG[1]), *raw_round(WRONG[2]))
    state = await run(fake_openai, context_pruning=False, max_revisions=2)
    assert state.report is not None and state.report.revisions == 2
    first, second, third = coder_prompts(fake_openai)
    assert "revision" not in first
    assert "This is revision 1" in second and WRONG[0].strip() in second
    assert WRONG[1].strip() not in second
    assert "This is revision 2" in third
    assert WRONG[0].strip() in third and WRONG[1].strip() in third
    assert third.index("Attempt 1,") < third.index(WRONG[0].strip()) < third.index("Attempt 2,")
    assert third.index("Attempt 2,") < third.index(WRONG[1].strip())
    assert third.count("Its problems:") == 2 and third.count("failed") >= 2
    coder_sizes = sizes(fake_openai, "CodeSubmission")
    assert coder_sizes[0] < coder_sizes[1] < coder_sizes[2]
    assert coder_sizes[2] - coder_sizes[1] > 100  # each revision adds a whole attempt


async def test_pruned_coder_prompt_stays_bounded_on_the_same_script(
    fake_openai: FakeOpenAI,
) -> None:
    pruned_script = [*round_steps(WRONG[0]), *round_steps(WRONG[1]), *round_steps(WRONG[2])]
    fake_openai.script(brief(), summary(), *pruned_script)
    state = await run(fake_openai, max_revisions=2)
    assert state.report is not None and state.report.revisions == 2
    pruned = sizes(fake_openai, "CodeSubmission")
    third = coder_prompts(fake_openai)[2]
    assert WRONG[1].strip() in third and WRONG[0].strip() not in third  # only the latest code
    assert abs(pruned[2] - pruned[1]) < 200  # revisions 1 and 2 cost the same

    fake_openai.reset()
    fake_openai.script(brief(), *raw_round(WRONG[0]), *raw_round(WRONG[1]), *raw_round(WRONG[2]))
    await run(fake_openai, context_pruning=False, max_revisions=2)
    unpruned = sizes(fake_openai, "CodeSubmission")
    assert unpruned[2] - unpruned[1] > pruned[2] - pruned[1] + 100


async def test_history_accumulates_only_without_pruning(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(brief(), summary(), *round_steps(WRONG[0]), *round_steps(WRONG[1]))
    pruned = await decide_updates(fake_openai, max_revisions=1)
    assert [u["decision"] for u in pruned] == ["revise", "finish"]
    assert all("history" not in update for update in pruned)

    fake_openai.reset()
    fake_openai.script(brief(), *raw_round(WRONG[0]), *raw_round(WRONG[1]))
    unpruned = await decide_updates(fake_openai, context_pruning=False, max_revisions=1)
    assert [u["decision"] for u in unpruned] == ["revise", "finish"]
    [attempt] = unpruned[0]["history"]
    assert attempt.startswith("Attempt 1,") and WRONG[0].strip() in attempt
    assert "history" not in unpruned[1]  # finishing appends nothing


def test_history_keeps_the_last_attempts() -> None:
    history: list[str] = []
    for number in range(HISTORY_ATTEMPTS + 3):
        history = append_history(history, [f"attempt {number}"])
    assert len(history) == HISTORY_ATTEMPTS
    assert history[0] == "attempt 3" and history[-1] == f"attempt {HISTORY_ATTEMPTS + 2}"


# --- prompt_layout ---------------------------------------------------------------------------

# What each request's variable text starts with, and its stable system text, by schema.
VARIABLE_START = {
    "LookupPlan": "Available tools: workspace_search, workspace_read\n",
    "ResearchBrief": "What your lookups found:\n",
    "StageSummary": "Hand-over for: ",
    "CodeSubmission": "Brief:\n",
    "AuditReport": "Context:\n",
}


def systems_for(schema: str) -> list[str]:
    return {
        "LookupPlan": [prompts.LOOKUP_SYSTEM],
        "ResearchBrief": [prompts.RESEARCHER_SYSTEM],
        "StageSummary": [prompts.SUMMARIZER_SYSTEM],
        "CodeSubmission": [prompts.CODER_SYSTEM],
        "AuditReport": list(prompts.AUDITOR_SYSTEM.values()),
    }[schema]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "calc.py").write_text("def add(a, b):\n    ...\n")
    return root


async def run_every_agent(fake: FakeOpenAI, workspace: Path, order: str) -> OutputState:
    """A run that calls every agent: lookups, brief, both summarizers, a revision, auditors."""
    fake.script(
        plan({"tool": "workspace_search", "arguments": {"query": "add"}}),
        brief(),
        summary(),
        *round_steps(WRONG[0]),
        *round_steps(GOOD_CODE),
    )
    out = await graph.ainvoke(
        InputState(task="add two numbers", workspace=str(workspace)),
        context=ctx(fake, prompt_layout=order),
        version="v2",
    )
    state: OutputState = out.value
    assert state.status == "done", state.error
    assert state.report is not None and state.report.revisions == 1
    return state


async def test_variable_first_puts_the_run_text_before_the_rules(
    fake_openai: FakeOpenAI, workspace: Path
) -> None:
    await run_every_agent(fake_openai, workspace, "variable_first")
    bodies = fake_openai.requests()
    assert {schema_of(body) for body in bodies} == set(VARIABLE_START)
    for body in bodies:
        schema = schema_of(body)
        first, last = body["messages"]
        assert first["role"] == "system" and last["role"] == "user"
        assert first["content"].startswith(VARIABLE_START[schema]), schema
        assert any(first["content"].endswith("\n\n" + s) for s in systems_for(schema)), schema
        assert last["content"] == prompts.ANSWER_NOW
    researcher = next(b for b in bodies if schema_of(b) == "ResearchBrief")
    assert "Task:\nadd two numbers" in researcher["messages"][0]["content"]
    revision = chat_bodies(fake_openai, "CodeSubmission")[1]["messages"][0]["content"]
    assert revision.index("This is revision 1") < revision.index(prompts.CODER_SYSTEM)


async def test_stable_first_starts_every_request_with_the_rules(
    fake_openai: FakeOpenAI, workspace: Path
) -> None:
    await run_every_agent(fake_openai, workspace, "stable_first")
    bodies = fake_openai.requests()
    assert {schema_of(body) for body in bodies} == set(VARIABLE_START)
    for body in bodies:
        schema = schema_of(body)
        first, last = body["messages"]
        assert first["role"] == "system" and first["content"] in systems_for(schema), schema
        assert last["role"] == "user" and last["content"].startswith(VARIABLE_START[schema])


def test_layout_function() -> None:
    assert prompts.layout("rules", "task") == [SystemMessage("rules"), HumanMessage("task")]
    assert prompts.layout("rules", "task", "stable_first") == prompts.layout("rules", "task")
    assert prompts.layout("rules", "task", "variable_first") == [
        SystemMessage("task\n\nrules"),
        HumanMessage(prompts.ANSWER_NOW),
    ]
    with pytest.raises(ValueError, match="unknown prompt layout"):
        prompts.layout("rules", "task", "sideways")  # type: ignore[arg-type]


# --- the default context ---------------------------------------------------------------------


def test_defaults_are_the_normal_mode() -> None:
    context = Context()
    assert context.context_pruning is True
    assert context.prompt_layout == "stable_first"
    assert researcher_messages("add two numbers") == [
        SystemMessage(prompts.RESEARCHER_SYSTEM),
        HumanMessage("Task:\nadd two numbers\n"),
    ]


async def test_default_run_summarizes_and_revises_as_before(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(brief(), summary(), *round_steps(WRONG[0]), *round_steps(GOOD_CODE))
    state = await run(fake_openai)
    assert state.report is not None and state.report.outcome == "approved"
    assert len(chat_bodies(fake_openai, "StageSummary")) == 3  # brief, then each round's code
    [researcher] = chat_bodies(fake_openai, "ResearchBrief")
    assert researcher["messages"] == [
        {"role": "system", "content": prompts.RESEARCHER_SYSTEM},
        {"role": "user", "content": "Task:\nadd two numbers\n"},
    ]
    first, second = chat_bodies(fake_openai, "CodeSubmission")
    assert first["messages"][0] == {"role": "system", "content": prompts.CODER_SYSTEM}
    revision = second["messages"][-1]["content"]
    expected_tail = prompts.CODER_REVISION.format(
        number=1, code=WRONG[0], problems="PLACEHOLDER"
    ).split("PLACEHOLDER")
    assert expected_tail[0] in revision and revision.endswith(expected_tail[1])
    assert "Attempt 1," not in revision and "Its problems:" not in revision
