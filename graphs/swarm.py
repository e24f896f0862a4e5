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
exported as ``graph``, named ``swarm``.
"""

from __future__ import annotations

from typing import Literal

from langgraph.graph import END, START, StateGraph

from agents.examples import entry_point_of
from graphs import coding, nodes
from graphs.context import Context
from graphs.nodes import validate_task
from graphs.state import InputState, OutputState, State

__all__ = ["build_graph", "graph", "validate_task"]


def route_to_auditors(state: State) -> list[str]:
    """Both auditors in parallel, unless the run has failed."""
    if state.status == "failed":
        return ["finish"]
    return ["security_auditor", "performance_auditor"]


def brief_in_parallel(state: InputState) -> bool:
    """Whether the researcher's brief can be written beside the code, not before it.

    The coder and the test writer read the task verbatim; the brief only feeds them an entry
    point the statement does not name and the lookups' notes. A run with neither (no
    workspace, no database, the statement names its function or class) starts all three at
    once, and the brief leaves the critical path.
    """
    if state.workspace or state.database:
        return False
    try:
        task = validate_task(state.task)
    except ValueError:
        return False
    return entry_point_of(task) is not None


def route_start(state: State) -> list[str]:
    """The researcher first; beside the coder and the test writer when it can be."""
    if brief_in_parallel(state):
        return ["researcher", "coder", "test_writer"]
    return ["researcher"]


def route_after_researcher(state: State) -> str:
    """On to the summarizer, unless the run failed or the brief was written beside the code."""
    if brief_in_parallel(state):
        # run_tests follows the coder and the test writer, and sees a failed status itself.
        return END
    return "finish" if state.status == "failed" else "summarize_brief"


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
    builder.add_node("researcher", nodes.researcher)
    builder.add_node("summarize_brief", nodes.summarize_brief)
    builder.add_node("coder", coding.coder)
    builder.add_node("test_writer", coding.test_writer)
    builder.add_node("run_tests", coding.run_tests)
    builder.add_node("summarize_code", nodes.summarize_code)
    builder.add_node("security_auditor", nodes.security_auditor)
    builder.add_node("performance_auditor", nodes.performance_auditor)
    builder.add_node("decide", nodes.decide)
    builder.add_node("finish", nodes.finish)

    builder.add_conditional_edges(START, route_start, ["researcher", "coder", "test_writer"])
    builder.add_conditional_edges(
        "researcher", route_after_researcher, ["summarize_brief", "finish", END]
    )
    builder.add_conditional_edges(
        "summarize_brief", route_to_writers, ["coder", "test_writer", "finish"]
    )
    # The first round's coder and test writer run in the same step, so run_tests runs once
    # after both; a revision's coder alone triggers it again.
    builder.add_edge("coder", "run_tests")
    builder.add_edge("test_writer", "run_tests")
    builder.add_conditional_edges(
        "run_tests", coding.route_after_tests, ["coder", "summarize_code", "finish"]
    )
    builder.add_conditional_edges(
        "summarize_code", route_to_auditors, ["security_auditor", "performance_auditor", "finish"]
    )
    builder.add_edge(["security_auditor", "performance_auditor"], "decide")
    builder.add_conditional_edges("decide", route_decision)
    builder.add_edge("finish", END)
    return builder


graph = build_graph().compile(name="swarm")
