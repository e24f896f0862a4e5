"""Roles declared once (graphs/roles.py): the context's fields, earlier names, a toy role on a
one-node graph, and a new role added through ROLES to the whole swarm."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, fields
from typing import Any, Literal, TypedDict

import pytest
from langchain_core.messages import BaseMessage
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from pydantic import BaseModel, ConfigDict

from agents.prompts import layout
from graphs import endpoints
from graphs.context import Context, with_roles
from graphs.llm import GRAMMARS, ask
from graphs.roles import ROLES, RoleSpec, current_names, every_role, names, spec_of
from tests.fakes import FakeOpenAI
from tests.support import ROOT
from tests.support.scripts import GOOD_CODE, audits, brief, code, suite


def test_every_declared_role_has_its_three_context_fields() -> None:
    defaults = {f.name: f.default for f in fields(Context)}
    for spec in ROLES:
        assert defaults[f"{spec.name}_model"] == spec.model
        assert defaults[f"{spec.name}_temperature"] == spec.temperature
        assert defaults[f"{spec.name}_tokens"] == spec.tokens
    role_models = {name for name in defaults if name.endswith("_model")} - {"fallback_model"}
    assert role_models == {f"{name}_model" for name in names()}
    assert Context.roles == ROLES
    assert {role for role, _ in GRAMMARS} == set(names())


def test_fields_under_their_earlier_names_are_taken_as_todays() -> None:
    earlier = {"research_tokens": 64, "audit_tokens": 32, "summary_tokens": 16}
    context = Context(**earlier)
    assert [context.tokens_for(r) for r in ("researcher", "auditor", "summarizer")] == [64, 32, 16]
    assert endpoints.models_needed({"research_tokens": 64, **every_role("m")}) == [
        "m",
        "smollm2-135m-instruct",
    ]
    with pytest.raises(ValueError, match="research_tokens is the earlier name of researcher_"):
        current_names({"research_tokens": 1, "researcher_tokens": 2})


def test_an_unknown_role_or_field_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown role 'no_such_role'; the roles are researcher, "):
        Context().model_for("no_such_role")
    with pytest.raises(TypeError, match="Context has no field no_such_role_model"):
        Context(no_such_role_model="m")
    with pytest.raises(ValueError, match="lower-case identifier"):
        RoleSpec("Re viewer", "m", "the reviewer")
    assert spec_of("coder").schemas == (None,)


# -- adding a role: one declaration, its agent's prompt and schema, the node that calls it ---


class Opinion(BaseModel):
    """The toy reviewer's answer."""

    model_config = ConfigDict(extra="forbid")
    verdict: Literal["good", "bad"]


REVIEWER = RoleSpec(
    "toy_reviewer", "reviewer-model", "the reviewer", schemas=(Opinion,), temperature=0.3, tokens=40
)


@dataclass(kw_only=True, init=False)  # Context's own __init__
@with_roles((REVIEWER,))
class ReviewContext(Context):
    """The swarm's context and the reviewer's fields."""


def reviewer_messages(code: str) -> list[BaseMessage]:
    """The reviewer agent's prompt (in agents/reviewer.py for a real role)."""
    return layout("You are the reviewer. Say whether the code is good.", f"Code:\n{code}\n")


class Review(TypedDict):
    code: str
    verdict: str


async def review(state: Review, runtime: Runtime[ReviewContext]) -> dict[str, Any]:
    """The reviewer's node."""
    messages = reviewer_messages(state["code"])
    answer = await ask(runtime.context, "toy_reviewer", "reviewer", Opinion, messages)
    return {"verdict": answer.value.verdict}


async def test_a_toy_role_is_one_declaration_and_its_node(fake_openai: FakeOpenAI) -> None:
    builder = StateGraph(Review, context_schema=ReviewContext)
    builder.add_node("review", review)
    builder.add_edge(START, "review")
    builder.add_edge("review", END)
    graph = builder.compile()
    schema = graph.get_context_jsonschema()  # what Studio's form shows
    assert schema is not None
    form = schema["properties"]
    assert {
        "toy_reviewer_model",
        "toy_reviewer_temperature",
        "toy_reviewer_tokens",
        "coder_model",
    } <= set(form)
    assert form["toy_reviewer_model"]["default"] == "reviewer-model"
    fake_openai.script({"schema": "Opinion", "content": json.dumps({"verdict": "good"})})
    context = ReviewContext(
        base_url=fake_openai.base_url, lease_models=False, toy_reviewer_model=fake_openai.model
    )
    out = await graph.ainvoke({"code": "x = 1", "verdict": ""}, context=context)
    assert out["verdict"] == "good"
    [body] = fake_openai.requests()
    assert body["model"] == fake_openai.model
    assert body["temperature"] == 0.3 and body["max_completion_tokens"] == 40
    assert "You are the reviewer" in body["messages"][0]["content"]
    assert ReviewContext.roles == (*ROLES, REVIEWER)
    assert ReviewContext(toy_reviewer_tokens=7).tokens_for("toy_reviewer") == 7
    with pytest.raises(TypeError, match="Context has no field toy_reviewer_colour"):
        ReviewContext(toy_reviewer_colour="red")


CRITIC = """
import asyncio, json, sys
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from graphs import roles


class Critique(BaseModel):  # agents/schemas.py in a real role: bounded, choices as enums
    model_config = ConfigDict(extra="forbid")
    severity: Literal["info", "low", "medium", "high", "critical"]
    title: str = Field(max_length=80)


# 1. the declaration: one RoleSpec in ROLES (as if written in graphs/roles.py)
roles.ROLES = (
    *roles.ROLES,
    roles.RoleSpec(
        "second_opinion", "second-default", "the second opinion", schemas=(Critique,), tokens=33
    ),
)

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from agents.schemas import AuditReport, Finding
from graphs import swarm
from graphs.context import Context, context_of
from graphs.llm import GRAMMARS, ask
from graphs.state import InputState, State


# 2. its agent (agents/critic.py in a real role)
def critic_messages(code: str) -> list[Any]:
    return [HumanMessage(f"You are the critic. Criticize this code:\\n{code}")]


# 3. its node (graphs/nodes.py) and its wiring (graphs/swarm.py)
async def critic(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    ctx = context_of(runtime)
    code = state.files.get("solution.py", "")
    answer = await ask(ctx, "second_opinion", "second_opinion", Critique, critic_messages(code))
    finding = Finding(severity=answer.value.severity, title=answer.value.title, detail="")
    report = AuditReport(verdict="approve", findings=[finding])
    return {"audits": {"second_opinion": report}, "metrics": [answer.metrics]}


builder = swarm.build_graph()
builder.add_node("second_opinion", critic)
builder.add_edge("gather_evidence", "second_opinion")
builder.add_edge("second_opinion", "decide")
graph = builder.compile()

base_url = sys.argv[1]
context = Context(base_url=base_url, lease_models=False, second_opinion_model="fake-model")
assert Critique in [schema for _, schema in GRAMMARS]  # compiled at warm-up, like every role's
task = InputState(task="Write `add(a, b)` that returns a + b.")
out = asyncio.run(graph.ainvoke(task, context=context))
report = out["report"]
print(json.dumps({
    "outcome": report.outcome,
    "findings": [[f.auditor, f.severity, f.title] for f in report.findings],
    "role_fields": sorted(
        n for n in Context.__dataclass_fields__ if n.startswith("second_opinion_")
    ),
}))
"""


def test_a_role_added_through_roles_runs_in_the_whole_swarm(fake_openai: FakeOpenAI) -> None:
    """What docs/development.md's "Add a role" asks: one RoleSpec in ROLES, its agent, its node
    and wiring. Everything else (Context's fields, the warm-up's grammars, the scripted fakes'
    answers to every other role) follows from ROLES; the whole graph runs with fakes and the
    new role's answer is in the report."""
    fake_openai.script(
        brief(),
        code(GOOD_CODE),
        suite(),
        *audits(),
        {"schema": "Critique", "content": json.dumps({"severity": "low", "title": "terse"})},
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", CRITIC, fake_openai.base_url],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["outcome"] == "approved"
    assert ["second_opinion", "low", "terse"] in result["findings"]
    assert result["role_fields"] == [
        "second_opinion_model",
        "second_opinion_temperature",
        "second_opinion_tokens",
    ]
    [asked] = [b for b in fake_openai.requests() if "You are the critic" in json.dumps(b)]
    assert asked["response_format"]["json_schema"]["name"] == "Critique"
    assert asked["max_completion_tokens"] == 33  # the RoleSpec's budget
