"""Roles declared once (graphs/roles.py): the context's fields, earlier names, and a toy role."""

from __future__ import annotations

import json
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
    with pytest.raises(ValueError, match="unknown role 'reviewer'; the roles are researcher, "):
        Context().model_for("reviewer")
    with pytest.raises(TypeError, match="Context has no field reviewer_model"):
        Context(reviewer_model="m")
    with pytest.raises(ValueError, match="lower-case identifier"):
        RoleSpec("Re viewer", "m", "the reviewer")
    assert spec_of("coder").schemas == (None,)


# -- adding a role: one declaration, its agent's prompt and schema, the node that calls it ---


class Opinion(BaseModel):
    """The toy reviewer's answer."""

    model_config = ConfigDict(extra="forbid")
    verdict: Literal["good", "bad"]


REVIEWER = RoleSpec(
    "reviewer", "reviewer-model", "the reviewer", schemas=(Opinion,), temperature=0.3, tokens=40
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
    answer = await ask(runtime.context, "reviewer", "reviewer", Opinion, messages)
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
    assert {"reviewer_model", "reviewer_temperature", "reviewer_tokens", "coder_model"} <= set(form)
    assert form["reviewer_model"]["default"] == "reviewer-model"
    fake_openai.script({"schema": "Opinion", "content": json.dumps({"verdict": "good"})})
    context = ReviewContext(
        base_url=fake_openai.base_url, lease_models=False, reviewer_model=fake_openai.model
    )
    out = await graph.ainvoke({"code": "x = 1", "verdict": ""}, context=context)
    assert out["verdict"] == "good"
    [body] = fake_openai.requests()
    assert body["model"] == fake_openai.model
    assert body["temperature"] == 0.3 and body["max_completion_tokens"] == 40
    assert "You are the reviewer" in body["messages"][0]["content"]
    assert ReviewContext.roles == (*ROLES, REVIEWER)
    assert ReviewContext(reviewer_tokens=7).tokens_for("reviewer") == 7
    with pytest.raises(TypeError, match="Context has no field reviewer_colour"):
        ReviewContext(reviewer_colour="red")
