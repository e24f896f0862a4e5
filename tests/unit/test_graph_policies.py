"""LangGraph's own node policies on the swarm: the researcher's cache and its error handler."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any, cast

import pytest
from langgraph.cache.memory import InMemoryCache
from langgraph.graph.state import CompiledStateGraph

from graphs.state import InputState, OutputState
from graphs.swarm import build_graph, graph, research_key, server_graph
from tests.fakes import FakeOpenAI
from tests.support.graph import chat_bodies, ctx
from tests.support.scripts import GOOD_CODE, audits, brief, code, suite

TASK = "Write a function that adds two numbers."
"""No name in the statement: the coder waits for the brief (the researcher's serial path)."""


async def run_on(
    swarm: CompiledStateGraph[Any, Any, Any, Any], fake: FakeOpenAI, **overrides: Any
) -> OutputState:
    context = replace(ctx(fake), **overrides)
    out = await swarm.ainvoke(InputState(task=TASK), context=context, version="v2")
    state: OutputState = out.value
    return state


def briefs_asked(fake: FakeOpenAI) -> int:
    return len(chat_bodies(fake, "ResearchBrief"))


def rest() -> list[dict[str, Any]]:
    """What a run asks after its brief: the brief's summary, a candidate, checks, audits."""
    summary = {"schema": "StageSummary", "content": '{"summary": "add", "key_points": []}'}
    return [summary, code(GOOD_CODE), suite(), *audits()]


async def test_a_cached_graph_asks_for_the_same_brief_once(fake_openai: FakeOpenAI) -> None:
    swarm = build_graph().compile(cache=InMemoryCache())
    fake_openai.script(brief(entry_point="add"), *rest(), *rest())
    first = await run_on(swarm, fake_openai)
    again = await run_on(swarm, fake_openai)
    assert first.status == again.status == "done", (first.error, again.error)
    assert briefs_asked(fake_openai) == 1
    assert first.report is not None and again.report is not None
    assert again.report.files == first.report.files


async def test_another_researcher_model_asks_again(fake_openai: FakeOpenAI) -> None:
    swarm = build_graph().compile(cache=InMemoryCache())
    fake_openai.script(brief(entry_point="add"), *rest(), brief(entry_point="add"), *rest())
    await run_on(swarm, fake_openai)
    other = await run_on(swarm, fake_openai, researcher_model="small")
    assert other.status == "done", other.error
    assert briefs_asked(fake_openai) == 2


async def test_a_failed_brief_is_never_cached(fake_openai: FakeOpenAI) -> None:
    swarm = build_graph().compile(cache=InMemoryCache())
    bad = {"schema": "ResearchBrief", "content": "nope"}
    fake_openai.script(bad, bad, bad, brief(entry_point="add"), *rest())
    failed = await run_on(swarm, fake_openai)
    # the error handler ended the run failed, with what the calls cost
    assert failed.status == "failed" and failed.error is not None
    assert failed.error.startswith("researcher:")
    assert failed.report is not None and failed.report.outcome == "failed"
    assert [m.node for m in failed.metrics] == ["researcher"]
    retried = await run_on(swarm, fake_openai)
    assert retried.status == "done", retried.error
    assert briefs_asked(fake_openai) == 4


async def test_without_a_cache_every_run_asks(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(brief(entry_point="add"), *rest(), brief(entry_point="add"), *rest())
    await run_on(graph, fake_openai)
    await run_on(graph, fake_openai)
    assert briefs_asked(fake_openai) == 2


def test_only_the_served_graph_has_a_cache_and_both_draw() -> None:
    assert graph.cache is None and isinstance(server_graph.cache, InMemoryCache)
    for swarm in (graph, server_graph):  # drawing calls the key function with a dict
        drawn = swarm.get_graph().draw_mermaid()
        assert "setup" in drawn and "researcher" in drawn


def test_the_key_is_the_task_where_it_looks_and_the_model() -> None:
    keys = {
        research_key({"task": "t", "models": {"researcher": "a"}}),
        research_key({"task": "t", "models": {"researcher": "b"}}),
        research_key({"task": "u", "models": {"researcher": "a"}}),
        research_key({"task": "t", "workspace": "/w", "models": {"researcher": "a"}}),
        research_key({"task": "t", "database": "/d.db", "models": {"researcher": "a"}}),
    }
    assert len(keys) == 5
    assert research_key({}) == research_key({"models": {}})


async def test_a_node_waiting_for_its_model_says_so_on_the_stream(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Studio and the CLI see why a node waits: a lease slower than a second is announced."""
    from langgraph.graph import END, START, StateGraph
    from typing_extensions import TypedDict

    from app.report import print_call
    from graphs.llm import announced

    class S(TypedDict):
        out: str

    async def slow() -> str:
        await asyncio.sleep(0.3)
        return "loaded"

    async def node(state: S) -> dict[str, str]:
        event = {"event": "model", "node": "coder", "model": "m"}
        quick = await announced(slow(), event, after_s=5.0)  # no wait worth telling
        return {"out": quick + await announced(slow(), event, after_s=0.1)}

    builder = StateGraph(S)
    builder.add_node("n", node)
    builder.add_edge(START, "n")
    builder.add_edge("n", END)
    events: list[dict[str, Any]] = [
        cast(dict[str, Any], chunk)  # a custom event: what announced() wrote
        async for mode, chunk in builder.compile().astream(
            {"out": ""}, stream_mode=["custom", "values"]
        )
        if mode == "custom"
    ]
    assert [e["phase"] for e in events] == ["waiting", "ready"]
    assert events[1]["model"] == "m" and events[1]["seconds"] >= 0.2
    for event in events:
        print_call(event)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "[coder] waiting for model m (loading or swapping in)"
    assert lines[1].startswith("[coder] model m ready after ")
