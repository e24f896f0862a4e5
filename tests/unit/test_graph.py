"""The swarm graph against the scripted fake server: every path through it, and its bounds."""

from __future__ import annotations

import json
from typing import Any

import pytest

from graphs.context import Context
from graphs.state import InputState, OutputState
from graphs.swarm import graph
from tests.conftest import FakeOpenAI
from tests.unit.test_structured import BRIEF

GOOD_CODE = "def add(a, b):\n    return a + b\n"
BAD_CODE = "def add(a, b):\n    return a - b\n"
CHECKS = [{"call": "add(2, 3)", "expected": "5"}]


def summary(text: str = "Write add(a, b).") -> dict[str, Any]:
    return {"schema": "StageSummary", "content": json.dumps({"summary": text, "key_points": []})}


def code(source: str, **extra: Any) -> dict[str, Any]:
    body = {
        "code_lines": source.splitlines(),
        "checks": CHECKS,
        "notes": "adds two numbers",
    }
    return {"schema": "CodeSubmission", "content": json.dumps(body), **extra}


def audit(kind: str, verdict: str = "approve", findings: list[dict[str, str]] | None = None):
    body = {"verdict": verdict, "findings": findings or []}
    return {"schema": "AuditReport", "contains": f"the {kind} auditor", "content": json.dumps(body)}


def brief() -> dict[str, Any]:
    return {"schema": "ResearchBrief", "content": json.dumps(BRIEF)}


def round_steps(source: str) -> list[dict[str, Any]]:
    return [code(source), summary(), audit("security"), audit("performance")]


def ctx(fake: FakeOpenAI, **overrides: Any) -> Context:
    return Context(
        base_url=fake.base_url,
        researcher_model="big",
        coder_model="big",
        auditor_model="big",
        summarizer_model="big",
        fallback_model="small",
        **overrides,
    )


async def run(fake: FakeOpenAI, **overrides: Any) -> OutputState:
    out = await graph.ainvoke(
        InputState(task="add two numbers"), context=ctx(fake, **overrides), version="v2"
    )
    return out.value


def chat_bodies(fake: FakeOpenAI, schema: str | None = None) -> list[dict[str, Any]]:
    return [
        body
        for body in fake.requests()
        if schema is None or body["response_format"]["json_schema"]["name"] == schema
    ]


async def test_approve_path(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(brief(), summary(), *round_steps(GOOD_CODE))
    state = await run(fake_openai)
    assert state.status == "done", state.error
    report = state.report
    assert report is not None and report.outcome == "approved"
    assert report.files["solution.py"] == GOOD_CODE
    assert report.tests is not None and report.tests.ok and report.tests.passed == 1
    assert report.revisions == 0
    nodes = [m.node for m in state.metrics]
    assert nodes[:4] == ["researcher", "summarize_brief", "coder", "summarize_code"]
    assert sorted(nodes[4:]) == ["performance_auditor", "security_auditor"]
    assert report.prompt_tokens == sum(m.prompt_tokens for m in state.metrics) > 0


async def test_revise_path_sends_failures_back_to_the_coder(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(brief(), summary(), *round_steps(BAD_CODE), *round_steps(GOOD_CODE))
    state = await run(fake_openai)
    assert state.report is not None and state.report.outcome == "approved"
    assert state.report.revisions == 1
    first, second = chat_bodies(fake_openai, "CodeSubmission")
    revision_prompt = second["messages"][-1]["content"]
    assert "This is revision 1" in revision_prompt and BAD_CODE.strip() in revision_prompt
    assert "failed" in revision_prompt  # the failing test output travels back
    assert "revision" not in first["messages"][-1]["content"]


async def test_revision_limit_ends_unresolved(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(brief(), summary(), *(round_steps(BAD_CODE) * 3))
    state = await run(fake_openai, max_revisions=2)
    assert state.status == "done"
    assert state.report is not None and state.report.outcome == "unresolved"
    assert "tests still fail after 2 revision(s)" in state.report.reason
    assert len(chat_bodies(fake_openai, "CodeSubmission")) == 3


async def test_parallel_auditors_are_merged(fake_openai: FakeOpenAI) -> None:
    high = [{"severity": "high", "title": "eval on input", "detail": "use ast.literal_eval"}]
    low = [{"severity": "low", "title": "style", "detail": "name"}]
    fake_openai.script(
        brief(),
        summary(),
        code(GOOD_CODE),
        summary(),
        audit("security", "revise", high),
        audit("performance", "approve", low),
        *round_steps(GOOD_CODE),
    )
    state = await run(fake_openai)
    assert state.report is not None and state.report.outcome == "approved"
    assert state.report.revisions == 1  # the security finding sent the code back
    revision_prompt = chat_bodies(fake_openai, "CodeSubmission")[1]["messages"][-1]["content"]
    assert "security [high] eval on input" in revision_prompt
    assert "style" not in revision_prompt  # low findings do not block


async def test_invalid_output_retries_then_falls_back(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(
        brief(),
        summary(),
        {"schema": "CodeSubmission", "content": "not json", "completion_tokens": 3},
        {
            "schema": "CodeSubmission",
            "content": '{"code": "x',
            "finish_reason": "length",
            "completion_tokens": 5,
        },
        code(GOOD_CODE, completion_tokens=40),
        summary(),
        audit("security"),
        audit("performance"),
    )
    state = await run(fake_openai)
    assert state.report is not None and state.report.outcome == "approved"
    coder_calls = chat_bodies(fake_openai, "CodeSubmission")
    assert [body["model"] for body in coder_calls] == ["big", "big", "small"]
    first, second, _ = (body["max_completion_tokens"] for body in coder_calls)
    assert second > first  # the retry had a larger budget
    [coder_metric] = [m for m in state.metrics if m.node == "coder"]
    assert coder_metric.model == "small" and coder_metric.attempts == 3 and coder_metric.ok
    # every attempt's tokens count where the server reported them: the cut-off answer's do;
    # the non-JSON one is rejected inside the OpenAI client, which keeps no usage
    assert (coder_metric.prompt_tokens, coder_metric.completion_tokens) == (20, 45)


async def test_timeout_goes_straight_to_the_fallback(fake_openai: FakeOpenAI) -> None:
    fake_openai.script({**brief(), "delay_s": 3}, {**brief()}, summary(), *round_steps(GOOD_CODE))
    state = await run(fake_openai, node_timeout_s=1.0)
    assert state.status == "done", state.error
    researcher_calls = chat_bodies(fake_openai, "ResearchBrief")
    assert [body["model"] for body in researcher_calls] == ["big", "small"]


async def test_failing_node_ends_the_run_with_reason(fake_openai: FakeOpenAI) -> None:
    bad = {"schema": "ResearchBrief", "content": "nope"}
    fake_openai.script(bad, bad, bad)
    state = await run(fake_openai)
    assert state.status == "failed"
    assert state.error is not None and state.error.startswith("researcher:")
    assert state.report is not None and state.report.outcome == "failed"
    assert chat_bodies(fake_openai, "CodeSubmission") == []
    [failed] = state.metrics  # the failed call is measured like a successful one
    assert failed.node == "researcher" and not failed.ok and failed.attempts == 3
    assert failed.model == "small" and failed.seconds > 0


async def test_a_failed_coder_keeps_the_cost_of_the_nodes_before(fake_openai: FakeOpenAI) -> None:
    bad = {"schema": "CodeSubmission", "content": "nope", "completion_tokens": 2}
    fake_openai.script(brief(), summary(), bad, bad, bad)
    state = await run(fake_openai)
    assert state.status == "failed" and state.error is not None
    assert [(m.node, m.ok) for m in state.metrics] == [
        ("researcher", True),
        ("summarize_brief", True),
        ("coder", False),
    ]
    assert state.metrics[-1].attempts == 3 and state.metrics[-1].seconds > 0


async def test_prompts_stay_bounded_as_revisions_grow(fake_openai: FakeOpenAI) -> None:
    long_failure = "def add(a, b):\n    raise ValueError('x' * 5000)\n"
    fake_openai.script(brief(), summary(), *(round_steps(long_failure) * 4))
    state = await run(fake_openai, max_revisions=3)
    assert state.report is not None and state.report.revisions == 3
    sizes = [
        len(json.dumps(body["messages"])) for body in chat_bodies(fake_openai, "CodeSubmission")
    ]
    assert len(sizes) == 4
    assert max(sizes[1:]) - min(sizes[1:]) < 200  # revisions 1..3 cost the same
    assert max(sizes) < 9000  # and stay under a fixed bound, whatever the history
    for body in fake_openai.requests():
        assert body["response_format"]["type"] == "json_schema"
        assert body["response_format"]["json_schema"]["strict"] is True
        assert not any(key.startswith("guided_") for key in body)


async def test_empty_task_fails_without_a_request(fake_openai: FakeOpenAI) -> None:
    out = await graph.ainvoke(InputState(task="  "), context=ctx(fake_openai), version="v2")
    assert out.value.status == "failed" and "empty" in (out.value.error or "")
    assert fake_openai.requests() == []


async def test_gateway_lease_is_asked_before_each_call(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(brief(), summary(), *round_steps(GOOD_CODE))
    state = await run(fake_openai)  # the fake has no /models/*/load: treated as plain vLLM
    assert state.status == "done"
    assert all(m.swap_wait_s == 0.0 for m in state.metrics)


def test_graph_shape() -> None:
    drawn = graph.get_graph()
    assert graph.name == "swarm"
    assert {
        "researcher",
        "summarize_brief",
        "coder",
        "run_tests",
        "summarize_code",
        "security_auditor",
        "performance_auditor",
        "decide",
        "finish",
    } <= set(drawn.nodes)


@pytest.mark.parametrize("task", ["", "x" * 9000])
async def test_bad_tasks(fake_openai: FakeOpenAI, task: str) -> None:
    out = await graph.ainvoke(InputState(task=task), context=ctx(fake_openai), version="v2")
    assert out.value.status == "failed"


@pytest.mark.parametrize(
    ("context", "message"),
    [
        ({"reviewer_model": "big"}, "unexpected keyword argument 'reviewer_model'"),
        ({"coder_model": ""}, "coder_model must be a model name"),
        ({"fallback_model": "a\nb"}, "fallback_model must be a model name, not 'a\\nb' or null"),
        ({"max_revisions": -1}, "max_revisions must be a whole number, zero or more, not -1"),
        ({"resend_backoff_s": "1"}, "resend_backoff_s must be a number, zero or more, not '1'"),
        ({"node_timeout_s": 0}, "node_timeout_s must be a positive number, not 0"),
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
            context={"base_url": fake_openai.base_url, **context},
            version="v2",
        )
    assert message in str(raised.value)
    assert fake_openai.requests() == []
