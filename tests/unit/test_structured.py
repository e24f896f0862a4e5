"""The exact structured-output payload sent, and what happens to bad answers."""

import json
from collections.abc import AsyncIterator

import httpx
import pytest
from langchain_core.language_models import BaseChatModel
from langchain_openai import ChatOpenAI

from agents.researcher import researcher_messages
from agents.schemas import ResearchBrief
from agents.structured import (
    InvalidOutputError,
    StructuredResult,
    TruncatedOutputError,
    ainvoke_structured,
    chat_model,
    token_budget,
)
from tests.fakes import FakeOpenAI
from tests.support.scripts import BRIEF


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient() as client:
        yield client


async def research(
    task: str, llm: BaseChatModel, *, model_name: str
) -> StructuredResult[ResearchBrief]:
    """The researcher's brief on ``task``: its prompt, one guided call, no retry."""
    return await ainvoke_structured(
        llm, ResearchBrief, researcher_messages(task), model_name=model_name
    )


def llm_for(fake: FakeOpenAI, http: httpx.AsyncClient, max_tokens: int = 500) -> ChatOpenAI:
    return chat_model(
        base_url=fake.base_url, model=fake.model, max_tokens=max_tokens, http_client=http
    )


async def test_request_carries_the_json_schema_constraint(
    fake_openai: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    fake_openai.script(
        {"content": json.dumps(BRIEF), "prompt_tokens": 120, "completion_tokens": 40}
    )
    result = await research("add two numbers", llm_for(fake_openai, http), model_name="m")
    assert result.value == ResearchBrief.model_validate(BRIEF)
    assert (result.prompt_tokens, result.completion_tokens) == (120, 40)
    [body] = fake_openai.requests()
    response_format = body["response_format"]
    assert response_format["type"] == "json_schema"
    spec = response_format["json_schema"]
    assert spec["strict"] is True
    assert spec["schema"]["properties"]["kind"]["enum"] == list(
        ResearchBrief.model_json_schema()["properties"]["kind"]["enum"]
    )
    assert spec["schema"]["additionalProperties"] is False
    assert spec["schema"]["properties"]["requirements"]["maxItems"] == 5
    # never the removed, silently ignored field
    assert not any(key.startswith("guided_") for key in body)
    assert body["temperature"] == 0.0 and body["seed"] == 0
    assert body["max_completion_tokens"] == 500
    # stable system prompt first, the variable task last (prefix caching)
    assert body["messages"][0]["role"] == "system"
    assert body["messages"][-1]["content"].rstrip().endswith("add two numbers")


async def test_cut_off_answer_is_a_clear_error(
    fake_openai: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    fake_openai.script(
        {
            "content": '{"summary": "Add two num',
            "finish_reason": "length",
            "prompt_tokens": 50,
            "completion_tokens": 9,
        }
    )
    with pytest.raises(TruncatedOutputError, match="model m: .*cut off") as info:
        await research("add two numbers", llm_for(fake_openai, http), model_name="m")
    assert info.value.raw.startswith('{"summary"')
    assert (info.value.prompt_tokens, info.value.completion_tokens) == (50, 9)  # still a cost


async def test_invalid_json_is_a_clear_error(
    fake_openai: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    fake_openai.script({"content": "Sure! Here is your brief: add(a, b)"})
    with pytest.raises(InvalidOutputError, match="does not match the schema"):
        await research("add two numbers", llm_for(fake_openai, http), model_name="m")


async def test_schema_violation_is_a_clear_error(
    fake_openai: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    bad = dict(BRIEF, kind="poem")
    fake_openai.script({"content": json.dumps(bad)})
    with pytest.raises(InvalidOutputError, match="does not match the schema"):
        await research("add two numbers", llm_for(fake_openai, http), model_name="m")


async def test_server_error_is_a_clear_error(
    fake_openai: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    fake_openai.script({"status": 500})
    with pytest.raises(InvalidOutputError, match="request failed"):
        await research("add two numbers", llm_for(fake_openai, http), model_name="m")


def test_token_budget_covers_the_largest_answer() -> None:
    budget = token_budget(ResearchBrief)
    biggest = ResearchBrief(
        summary="s" * 240,
        kind="refactor",
        entry_point="e" * 60,
        requirements=["r" * 100] * 5,
    )
    assert budget * 2.5 >= len(biggest.model_dump_json())
    assert budget < 2000


def test_token_budget_handles_unions_and_consts() -> None:
    from agents.lookups import lookup_plan_schema

    one = token_budget(lookup_plan_schema(["sql_schema"]))
    both = token_budget(lookup_plan_schema(["sql_schema", "sql_query"]))
    assert both > one * 10  # the sql_query branch (8000-character queries) dominates
