"""LangGraph's own node policies on the swarm: the researcher's cache and its error handler."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from typing import Any, cast

import pytest
from langgraph.cache.memory import InMemoryCache
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import CachePolicy

from graphs import swarm as swarm_module
from graphs.state import InputState, OutputState, State
from graphs.swarm import (
    RESEARCH_CACHE_TTL_S,
    build_graph,
    graph,
    research_key,
    server_graph,
)
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


EDGES = {
    ("__start__", "setup", False),
    ("setup", "researcher", True),
    ("setup", "coder", True),
    ("setup", "test_writer", True),
    ("setup", "finish", True),
    ("researcher", "summarize_brief", True),
    ("researcher", "__end__", True),  # the brief written beside the code
    ("researcher", "finish", True),  # its error handler's way out
    ("summarize_brief", "coder", True),
    ("summarize_brief", "test_writer", True),
    ("summarize_brief", "finish", True),
    ("coder", "run_tests", False),
    ("test_writer", "run_tests", False),
    ("run_tests", "coder", True),
    ("run_tests", "gather_evidence", True),
    ("run_tests", "finish", True),
    ("gather_evidence", "security_auditor", True),
    ("gather_evidence", "performance_auditor", True),
    ("gather_evidence", "finish", True),
    ("security_auditor", "decide", False),
    ("performance_auditor", "decide", False),
    ("decide", "coder", True),
    ("decide", "finish", True),
    ("finish", "__end__", False),
}
"""The swarm's edges as ``build_graph`` wires them: (source, target, conditional)."""


def test_only_the_served_graph_has_a_cache_and_both_draw() -> None:
    assert graph.cache is None and isinstance(server_graph.cache, InMemoryCache)
    for swarm in (graph, server_graph):
        # the same policy on both: only where a cache is given does it keep briefs
        policies = {name: node.cache_policy for name, node in swarm.builder.nodes.items()}
        assert policies.pop("researcher") == CachePolicy(
            key_func=research_key, ttl=RESEARCH_CACHE_TTL_S
        )
        assert set(policies.values()) == {None}
        drawn = swarm.get_graph()
        assert {(e.source, e.target, e.conditional) for e in drawn.edges} == EDGES
        nodes = {node for edge in EDGES for node in edge[:2]}
        assert set(drawn.nodes) == nodes | {"__error_handler__researcher"}
        mermaid = {line.strip() for line in drawn.draw_mermaid().splitlines()}
        for source, target, conditional in EDGES:
            assert f"{source} {'-.->' if conditional else '-->'} {target};" in mermaid
    assert graph.get_graph().draw_mermaid() == server_graph.get_graph().draw_mermaid()


def test_drawing_the_graph_calls_the_research_key_with_a_dict(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """LangGraph hands the key function the researcher's input when it draws the graph too:
    a dict, not the state; the key must read it, or the served graph cannot be drawn."""
    seen: list[object] = []

    def key(state: State | dict[str, Any]) -> str:
        seen.append(state)
        return research_key(state)

    monkeypatch.setattr(swarm_module, "research_key", key)
    swarm = build_graph().compile(cache=InMemoryCache())
    swarm.get_graph()
    assert seen and all(type(state) is dict for state in seen)
    drawn = cast(dict[str, Any], seen[0])
    assert "task" not in drawn and "models" not in drawn  # a partial state: no run's fields
    assert research_key(drawn) == research_key({}) == json.dumps([None, None, None, None])


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
