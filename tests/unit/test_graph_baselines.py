"""The benchmark baselines: runs without context pruning, and with the variable part first."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from agents import auditor, coder, lookups, prompts, summarizer, test_writer
from agents import researcher as researcher_agent
from agents.researcher import researcher_messages
from graphs.context import Context
from graphs.state import HISTORY_ATTEMPTS, InputState, OutputState, append_history
from graphs.swarm import graph
from tests.fakes import FakeOpenAI
from tests.support.graph import chat_bodies, coder_bodies, ctx, run
from tests.support.scripts import GOOD_CODE, audits, brief, code, plan, suite, summary

# Three different wrong answers to add(2, 3) == 5, one per round; the task states that
# example, so each failure has support and a revision follows.
WRONG = [f"def add(a, b):\n    return a {op} b\n" for op in ("-", "*", "//")]
TASK = "Write `add(a, b)` returning the sum: add(2, 3) == 5."


def rounds(*sources: str) -> list[dict[str, Any]]:
    """A run's answers: the brief, the writer's checks, one candidate a round, the auditors."""
    return [brief(), suite(), *(code(source) for source in sources), *audits()]


def coder_prompts(fake: FakeOpenAI) -> list[str]:
    return [body["messages"][-1]["content"] for body in coder_bodies(fake)]


def coder_sizes(fake: FakeOpenAI) -> list[int]:
    return [len(json.dumps(body["messages"])) for body in coder_bodies(fake)]


def schema_of(body: dict[str, Any]) -> str:
    name: str = (body.get("response_format") or {}).get("json_schema", {}).get("name", "code")
    return name


async def run_tests_updates(fake: FakeOpenAI, **overrides: Any) -> list[dict[str, Any]]:
    """What the run_tests node wrote, round by round."""
    updates: list[dict[str, Any]] = []
    async for chunk in graph.astream(
        InputState(task=TASK), context=ctx(fake, **overrides), stream_mode="updates"
    ):
        if "run_tests" in chunk:
            updates.append(chunk["run_tests"])
    return updates


# --- context_pruning=False ------------------------------------------------------------------


async def test_unpruned_run_calls_no_summarizer_and_hands_the_task_over_verbatim(
    fake_openai: FakeOpenAI,
) -> None:
    fake_openai.script(*rounds(*WRONG))
    state = await run(fake_openai, task=TASK, context_pruning=False, max_revisions=2)
    assert state.status == "done", state.error
    assert state.report is not None and state.report.outcome == "unresolved"
    assert state.report.revisions == 2
    assert chat_bodies(fake_openai, "StageSummary") == []
    assert coder_prompts(fake_openai)[0].startswith(TASK)
    auditor_prompt = chat_bodies(fake_openai, "AuditReport")[0]["messages"][-1]["content"]
    assert "Checks: " in auditor_prompt and "failed" in auditor_prompt


async def test_unpruned_coder_gets_every_earlier_attempt_and_prompts_grow(
    fake_openai: FakeOpenAI,
) -> None:
    fake_openai.script(*rounds(*WRONG))
    state = await run(fake_openai, task=TASK, context_pruning=False, max_revisions=2)
    assert state.report is not None and state.report.revisions == 2
    first, second, third = coder_prompts(fake_openai)
    assert "Attempt" not in first and "failed" not in first
    assert "Attempt 1:" in second and WRONG[0].strip() in second
    assert WRONG[1].strip() not in second
    assert third.index("Attempt 1:") < third.index(WRONG[0].strip()) < third.index("Attempt 2:")
    assert third.index("Attempt 2:") < third.index(WRONG[1].strip())
    assert third.count("It failed:") == 2 and third.count("returned") >= 2
    sizes = coder_sizes(fake_openai)
    assert sizes[0] < sizes[1] < sizes[2]
    assert sizes[2] - sizes[1] > 100  # each revision adds a whole attempt


async def test_pruned_coder_prompt_stays_bounded_on_the_same_script(
    fake_openai: FakeOpenAI,
) -> None:
    fake_openai.script(*rounds(*WRONG))
    state = await run(fake_openai, task=TASK, max_revisions=2)
    assert state.report is not None and state.report.revisions == 2
    pruned = coder_sizes(fake_openai)
    third = coder_prompts(fake_openai)[2]
    # keep-best: the best so far (the first, which no later one beats) is what is revised
    assert WRONG[0].strip() in third and "Attempt" not in third
    assert abs(pruned[2] - pruned[1]) < 200  # revisions 1 and 2 cost the same

    fake_openai.reset()
    fake_openai.script(*rounds(*WRONG))
    await run(fake_openai, task=TASK, context_pruning=False, max_revisions=2)
    unpruned = coder_sizes(fake_openai)
    assert unpruned[2] - unpruned[1] > pruned[2] - pruned[1] + 100


async def test_history_accumulates_only_without_pruning(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(*rounds(WRONG[0], WRONG[1]))
    pruned = await run_tests_updates(fake_openai, max_revisions=1)
    assert [u["decision"] for u in pruned] == ["revise", "finish"]
    assert all("history" not in update for update in pruned)

    fake_openai.reset()
    fake_openai.script(*rounds(WRONG[0], WRONG[1]))
    unpruned = await run_tests_updates(fake_openai, context_pruning=False, max_revisions=1)
    assert [u["decision"] for u in unpruned] == ["revise", "finish"]
    [attempt] = unpruned[0]["history"]
    assert attempt.startswith("Attempt 1:") and WRONG[0].strip() in attempt
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
    # in a run with a workspace, the project's snippets open the test writer's and the
    # coder's prompts, before the task
    "TestSuite": prompts.PROJECT.split("\n", 1)[0],
    "code": prompts.PROJECT.split("\n", 1)[0],
    "AuditReport": "Context:\n",
}


def systems_for(schema: str) -> list[str]:
    return {
        "LookupPlan": [lookups.SYSTEM],
        "ResearchBrief": [researcher_agent.SYSTEM],
        "StageSummary": [summarizer.SYSTEM],
        "TestSuite": [test_writer.SYSTEM],
        "code": [coder.SYSTEM],
        "AuditReport": list(auditor.SYSTEM.values()),
    }[schema]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "calc.py").write_text("def add(a, b):\n    ...\n")
    return root


async def run_every_agent(fake: FakeOpenAI, workspace: Path, order: str) -> OutputState:
    """A run that calls every agent: lookups, brief, summarizer, writer, a revision, auditors."""
    fake.script(
        plan({"tool": "workspace_search", "arguments": {"query": "add"}}),
        summary(),
        *rounds(WRONG[0], GOOD_CODE),
    )
    out = await graph.ainvoke(
        InputState(task=TASK, workspace=str(workspace)),
        context=ctx(fake, prompt_layout=order),
        version="v2",
    )
    state: OutputState = out.value
    assert state.status == "done", state.error
    assert state.report is not None and state.report.revisions == 1
    return state


async def every_agents_request(
    fake: FakeOpenAI, workspace: Path, order: str
) -> list[dict[str, Any]]:
    """The request bodies of a run in which every agent asks once or more, all of them seen."""
    await run_every_agent(fake, workspace, order)
    bodies = fake.requests()
    assert {schema_of(body) for body in bodies} == set(VARIABLE_START)
    return bodies


def plain_prompt(body: dict[str, Any]) -> bool:
    """The first round's plain candidate: the task as one user turn, whatever the layout."""
    if schema_of(body) != "code" or len(body["messages"]) != 1:
        return False
    [turn] = body["messages"]
    assert turn["role"] == "user" and turn["content"].startswith(VARIABLE_START["code"]), turn
    assert f"Task:\n{TASK}" in turn["content"] and "# calc.py" in turn["content"]
    return True


async def test_variable_first_puts_the_run_text_before_the_rules(
    fake_openai: FakeOpenAI, workspace: Path
) -> None:
    bodies = await every_agents_request(fake_openai, workspace, "variable_first")
    for body in bodies:
        schema = schema_of(body)
        if plain_prompt(body):
            continue
        first, last = body["messages"]
        assert first["role"] == "system" and last["role"] == "user"
        assert first["content"].startswith(VARIABLE_START[schema]), schema
        assert any(first["content"].endswith("\n\n" + s) for s in systems_for(schema)), schema
        assert last["content"] == prompts.ANSWER_NOW
    researcher = next(b for b in bodies if schema_of(b) == "ResearchBrief")
    assert f"Task:\n{TASK}" in researcher["messages"][0]["content"]
    revision = coder_bodies(fake_openai)[1]["messages"][0]["content"]
    assert revision.index("Your previous solution") < revision.index(coder.SYSTEM)


async def test_stable_first_starts_every_request_with_the_rules(
    fake_openai: FakeOpenAI, workspace: Path
) -> None:
    for body in await every_agents_request(fake_openai, workspace, "stable_first"):
        schema = schema_of(body)
        if plain_prompt(body):
            continue
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
        SystemMessage(researcher_agent.SYSTEM),
        HumanMessage("Task:\nadd two numbers\n"),
    ]


async def test_default_run_revises_from_the_failing_call(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(*rounds(WRONG[0], GOOD_CODE))
    state = await run(fake_openai, task=TASK)
    assert state.report is not None and state.report.outcome == "approved"
    assert chat_bodies(fake_openai, "StageSummary") == []  # no lookups, nothing to condense
    [researcher] = chat_bodies(fake_openai, "ResearchBrief")
    assert researcher["messages"] == [
        {"role": "system", "content": researcher_agent.SYSTEM},
        {"role": "user", "content": f"Task:\n{TASK}\n"},
    ]
    first, second = coder_bodies(fake_openai)
    # the first round's one candidate is the plain prompt; a revision has the coder's rules
    assert first["messages"] == [{"role": "user", "content": TASK + coder.PLAIN_ASK}]
    assert second["messages"][0] == {"role": "system", "content": coder.SYSTEM}
    revision = second["messages"][-1]["content"]
    assert revision.startswith(TASK) and "Your previous solution" in revision
    assert WRONG[0].strip() in revision
    assert "`add(2, 3)` returned -1, but it should return 5" in revision
    assert "Attempt 1:" not in revision
