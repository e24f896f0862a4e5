import json

from graphs.context import Context
from graphs.state import InputState
from graphs.swarm import graph
from tests.conftest import FakeOpenAI
from tests.unit.test_structured import BRIEF


def context_for(fake: FakeOpenAI) -> Context:
    return Context(base_url=fake.base_url, researcher_model=fake.model)


async def test_researcher_node_fills_brief_and_metrics(fake_openai: FakeOpenAI) -> None:
    fake_openai.script({"content": json.dumps(BRIEF), "prompt_tokens": 99, "completion_tokens": 33})
    out = await graph.ainvoke(
        InputState(task="add two numbers"), context=context_for(fake_openai), version="v2"
    )
    state = out.value
    assert state.status == "done"
    assert state.brief is not None and state.brief.entry_point == "add"
    [metric] = state.metrics
    assert (metric.node, metric.model, metric.prompt_tokens) == ("researcher", "fake-model", 99)


async def test_empty_task_fails_cleanly_without_a_request(fake_openai: FakeOpenAI) -> None:
    out = await graph.ainvoke(
        InputState(task="   "), context=context_for(fake_openai), version="v2"
    )
    assert out.value.status == "failed"
    assert "empty" in (out.value.error or "")
    assert fake_openai.requests() == []


async def test_truncated_answer_fails_the_run_with_reason(fake_openai: FakeOpenAI) -> None:
    fake_openai.script({"content": '{"summ', "finish_reason": "length"})
    out = await graph.ainvoke(
        InputState(task="add two numbers"), context=context_for(fake_openai), version="v2"
    )
    assert out.value.status == "failed"
    assert "cut off" in (out.value.error or "")


def test_graph_is_named_and_has_the_researcher() -> None:
    assert graph.name == "swarm"
    assert "researcher" in graph.get_graph().nodes
