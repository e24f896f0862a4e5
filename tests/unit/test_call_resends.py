"""Resending what the endpoint could not take, apart from the structured-output retry."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage

from agents.call import AgentCallError, CallPolicy, call_structured, resend_delay
from agents.schemas import ResearchBrief
from agents.structured import chat_model
from runtime.process import free_port
from tests.fakes import FakeOpenAI
from tests.support.network import allow_loopback_port
from tests.support.scripts import brief

MESSAGES = [HumanMessage("add two numbers")]


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(trust_env=False) as client:
        yield client


def policy(**overrides: Any) -> CallPolicy:
    defaults: dict[str, Any] = {"model": "big", "fallback_model": "small", "backoff_s": 0.01}
    return CallPolicy(**{**defaults, **overrides})


async def call(base_url: str, http: httpx.AsyncClient, rules: CallPolicy) -> Any:
    def chat(model: str, max_tokens: int) -> BaseChatModel:
        return chat_model(base_url=base_url, model=model, max_tokens=max_tokens, http_client=http)

    return await call_structured(ResearchBrief, MESSAGES, rules, chat)


def models_asked(fake: FakeOpenAI) -> list[str]:
    return [body["model"] for body in fake.requests()]


async def test_a_restarting_model_is_resent_the_same_request(
    fake_openai: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    fake_openai.script({"status": 503}, {"status": 502}, brief())
    outcome = await call(fake_openai.base_url, http, policy())
    assert outcome.result.model == "big" and len(outcome.trace.attempts) == 1
    assert outcome.trace.resends == 2
    first, *resent = fake_openai.requests()
    assert resent == [first, first]  # the same request: not a larger budget, not another model


@pytest.mark.parametrize("status", [400, 404, 500])
async def test_a_refused_request_is_not_resent_and_goes_to_the_fallback(
    fake_openai: FakeOpenAI, http: httpx.AsyncClient, status: int
) -> None:
    fake_openai.script({"status": status}, brief())
    outcome = await call(fake_openai.base_url, http, policy())
    assert models_asked(fake_openai) == ["big", "small"]
    assert outcome.trace.resends == 0 and outcome.result.model == "small"


async def test_the_endpoints_deadline_goes_straight_to_the_fallback(
    fake_openai: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    fake_openai.script({"status": 504}, brief())
    outcome = await call(fake_openai.base_url, http, policy())
    assert models_asked(fake_openai) == ["big", "small"]
    assert "deadline passed" in outcome.trace.errors[0]


async def test_a_full_queue_is_waited_out_as_retry_after_says(
    fake_openai: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    full = {"status": 429, "headers": {"Retry-After": "0"}}
    fake_openai.script(full, full, full, {**full, "headers": {"Retry-After": "1"}}, brief())
    started = time.monotonic()
    outcome = await call(fake_openai.base_url, http, policy(resends=1))
    assert time.monotonic() - started >= 1.0
    # 429s do not count against the resends: the endpoint is alive and said when to return
    assert outcome.result.model == "big" and outcome.trace.resends == 4


async def test_a_model_unavailable_for_long_goes_to_the_fallback_at_once(
    fake_openai: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    cooling = {"status": 503, "headers": {"Retry-After": "30"}}  # a failed start cools down
    fake_openai.script(cooling, brief())
    started = time.monotonic()
    outcome = await call(fake_openai.base_url, http, policy())
    assert time.monotonic() - started < 5 and outcome.trace.resends == 0
    assert models_asked(fake_openai) == ["big", "small"]


async def test_an_unreachable_endpoint_is_resent_a_bounded_number_of_times(
    http: httpx.AsyncClient,
) -> None:
    port = free_port()  # nothing listens there: connection refused
    allow_loopback_port(port)
    started = time.monotonic()
    with pytest.raises(AgentCallError) as info:
        await call(f"http://127.0.0.1:{port}/v1", http, policy(resends=2))
    assert time.monotonic() - started < 5
    trace = info.value.trace
    assert trace.resends == 4 and [a.split("@")[0] for a in trace.attempts] == ["big", "small"]
    assert "did not answer (ConnectError" in str(info.value)


async def test_a_full_queue_is_waited_out_only_up_to_queue_wait_s(
    fake_openai: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    full = {"status": 429, "headers": {"Retry-After": "0"}}
    fake_openai.script(*[full] * 200, brief())
    rules = policy(backoff_s=0.2, max_backoff_s=0.2, queue_wait_s=1.0)
    started = time.monotonic()
    with pytest.raises(AgentCallError, match=r"429"):
        await call(fake_openai.base_url, http, rules)
    assert time.monotonic() - started < 10  # each model waited about 1 s, not forever


def test_the_resend_delay_backs_off_and_honours_retry_after() -> None:
    rules = CallPolicy(model="m", backoff_s=1.0, max_backoff_s=8.0)
    assert [resend_delay(rules, n, None) for n in range(1, 7)] == [1, 2, 4, 8, 8, 8]
    assert resend_delay(rules, 0, 3.0) == 3.0  # a 429: at least what the server asked
    assert resend_delay(rules, 1, 0.0) == 1.0
