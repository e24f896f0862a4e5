"""The edgeswarm graph: researcher, coder ∥ test writer, checks, evidence, auditors, decide.

researcher → summarize → [coder ∥ test writer] → run the checks → (revise) → gather
evidence → [security ∥ performance auditors] → decide. When the statement names its entry
point and the run has no workspace or database, the researcher runs beside the coder and the
test writer instead (:func:`brief_in_parallel`): nothing they read waits for the brief.

The coder writes several candidates at once, the test writer writes checks from the task
alone, and ``run_tests`` keeps the candidate that passes the best-supported checks; while a
check with support fails, and rounds are left, the coder revises from what the failing calls
returned. The auditors judge the chosen code on their tools' evidence; only evidence sends
it back. Any agent failure ends the run with a failed status and its reason. Compiled and
exported as ``graph``, named ``swarm`` (and as ``server_graph``, with a node cache for the
researcher, for ``langgraph.json``). A first ``setup`` node records the run's models.
"""

from __future__ import annotations

import json
from functools import partial
from typing import Any, Literal

from langgraph.cache.memory import InMemoryCache
from langgraph.errors import NodeError
from langgraph.graph import END, START, StateGraph
from langgraph.types import CachePolicy, Command
from pydantic import BaseModel

from agents.schemas import ResearchBrief, StageSummary
from agents.test_writer import TestSuite
from graphs import coding, nodes
from graphs.context import Context, Role
from graphs.llm import GRAMMARS, failure
from graphs.nodes import brief_in_parallel, researches_first, validate_task
from graphs.state import InputState, OutputState, State

__all__ = ["brief_in_parallel", "build_graph", "graph", "server_graph", "validate_task"]


def route_to_auditors(state: State) -> list[str]:
    """Both auditors in parallel, unless the run has failed."""
    if state.status == "failed":
        return ["finish"]
    return ["security_auditor", "performance_auditor"]


def later_grammars(
    inputs: InputState, model_lookups: bool = True
) -> list[tuple[Role, type[BaseModel] | None]]:
    """The grammars a run asks for after its first step (that step compiles its own).

    The summarizer answers only with the model's lookups to condense (a workspace or a
    database, and ``model_lookups``).
    """
    skip: set[tuple[Role, type[BaseModel] | None]] = {("researcher", ResearchBrief)}
    lookups = researches_first(inputs, model_lookups)
    if brief_in_parallel(inputs, research_first=lookups):
        skip |= {("researcher", TestSuite), ("coder", None)}
    if not lookups:
        skip.add(("summarizer", StageSummary))
    return [grammar for grammar in GRAMMARS if grammar not in skip]


def route_start(state: State) -> list[str]:
    """The researcher first; beside the coder and the test writer when it can be.

    To the final report when ``setup`` found no endpoint.
    """
    if state.status == "failed":
        return ["finish"]
    if brief_in_parallel(state):
        return ["researcher", "coder", "test_writer"]
    return ["researcher"]


def route_after_researcher(state: State) -> str:
    """On to the summarizer, unless the brief was written beside the code.

    A failed researcher never gets here: its error handler routes (:func:`research_failed`).
    """
    return END if brief_in_parallel(state) else "summarize_brief"


def research_failed(state: State, error: NodeError) -> Command[Literal["finish"]]:
    """The researcher's error handler: a bad task or no brief ends the run failed.

    On to the final report; beside the code (:func:`brief_in_parallel`) nowhere, as
    ``run_tests`` follows the coder and the test writer and sees the failed status itself.
    Any other exception is a bug and fails the run as it is.
    """
    err = error.error
    if isinstance(err, nodes.ResearchFailedError):
        update = {**failure(err), "metrics": err.metrics}
    elif isinstance(err, ValueError):
        update = failure(err)
    else:
        raise err
    if brief_in_parallel(state):
        return Command(update=update)
    return Command(update=update, goto="finish")


RESEARCH_CACHE_TTL_S = 3600
"""How long a cached brief is reused: a workspace or database it looked things up in may
change, so a brief is not kept for ever."""


def research_key(state: State | dict[str, Any]) -> str:
    """The researcher's node-cache key: the task, where it looks things up, and its model.

    LangGraph hands a cache key function the node's input only (the state; a dict when it
    draws the graph), not the run's context: so ``setup`` records the models in the state.
    The brief is asked greedily (temperature 0, a fixed seed), so a cached one is what the
    same model would write again.
    """
    get = state.get if isinstance(state, dict) else partial(getattr, state)
    models = get("models", None) or {}
    key = [get("task", None), get("workspace", None), get("database", None)]
    return json.dumps([*key, models.get("researcher")])


def route_to_writers(state: State) -> list[str]:
    """The coder and the test writer in parallel, unless the run has failed."""
    if state.status == "failed":
        return ["finish"]
    return ["coder", "test_writer"]


def route_decision(state: State) -> Literal["coder", "finish"]:
    """Back to the coder on ``revise``; to the final report otherwise."""
    if state.status != "failed" and state.decision == "revise":
        return "coder"
    return "finish"


def build_graph() -> StateGraph[State, Context, InputState, OutputState]:
    """The graph's structure, uncompiled."""
    builder = StateGraph(
        State, context_schema=Context, input_schema=InputState, output_schema=OutputState
    )
    builder.add_node("setup", nodes.setup)
    builder.add_node(
        "researcher",
        nodes.researcher,
        error_handler=research_failed,
        cache_policy=CachePolicy(key_func=research_key, ttl=RESEARCH_CACHE_TTL_S),
        destinations=("finish",),
    )
    builder.add_node("summarize_brief", nodes.summarize_brief)
    builder.add_node("coder", coding.coder)
    builder.add_node("test_writer", coding.test_writer)
    builder.add_node("run_tests", coding.run_tests)
    builder.add_node("gather_evidence", nodes.gather_evidence)
    builder.add_node("security_auditor", nodes.security_auditor)
    builder.add_node("performance_auditor", nodes.performance_auditor)
    builder.add_node("decide", nodes.decide)
    builder.add_node("finish", nodes.finish)

    builder.add_edge(START, "setup")
    builder.add_conditional_edges(
        "setup", route_start, ["researcher", "coder", "test_writer", "finish"]
    )
    builder.add_conditional_edges("researcher", route_after_researcher, ["summarize_brief", END])
    builder.add_conditional_edges(
        "summarize_brief", route_to_writers, ["coder", "test_writer", "finish"]
    )
    # The first round's coder and test writer run in the same step, so run_tests runs once
    # after both; a revision's coder alone triggers it again.
    builder.add_edge("coder", "run_tests")
    builder.add_edge("test_writer", "run_tests")
    builder.add_conditional_edges(
        "run_tests", coding.route_after_tests, ["coder", "gather_evidence", "finish"]
    )
    builder.add_conditional_edges(
        "gather_evidence", route_to_auditors, ["security_auditor", "performance_auditor", "finish"]
    )
    builder.add_edge(["security_auditor", "performance_auditor"], "decide")
    builder.add_conditional_edges("decide", route_decision)
    builder.add_edge("finish", END)
    return builder


graph = build_graph().compile(name="swarm")
"""The graph for the Python entrypoint and the CLI: no node cache, every run asks anew."""

server_graph = build_graph().compile(name="swarm", cache=InMemoryCache())
"""The graph ``langgraph.json`` serves (``make studio``, a LangGraph server): the same, with an
in-memory node cache for the researcher, so running a task again (same workspace, database
and researcher model) reuses its brief instead of asking for it again."""
