"""The edgeswarm graph. Today: the researcher; the coder and auditors join it next."""

from __future__ import annotations

from typing import Any

import httpx
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from agents.researcher import MAX_TASK_CHARS, research
from agents.schemas import ResearchBrief
from agents.structured import StructuredOutputError, chat_model, token_budget
from graphs.context import Context
from graphs.state import InputState, NodeMetrics, OutputState, State
from runtime.logs import get_logger

_log = get_logger("graph")


def validate_task(task: str) -> str:
    """The task, stripped; raise ValueError when it is empty or too long."""
    text = task.strip()
    if not text:
        raise ValueError("the task is empty")
    if len(text) > MAX_TASK_CHARS:
        raise ValueError(f"the task has {len(text)} characters; the limit is {MAX_TASK_CHARS}")
    return text


async def researcher(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Analyse the task into a structured research brief."""
    ctx = runtime.context or Context()
    try:
        task = validate_task(state.task)
    except ValueError as err:
        return {"status": "failed", "error": f"researcher: {err}"}
    try:
        async with httpx.AsyncClient(timeout=ctx.request_timeout_s) as http:
            llm = chat_model(
                base_url=ctx.base_url,
                model=ctx.researcher_model,
                api_key=ctx.api_key,
                max_tokens=ctx.max_tokens or token_budget(ResearchBrief),
                temperature=ctx.temperature,
                seed=ctx.seed,
                timeout_s=ctx.request_timeout_s,
                http_client=http,
            )
            result = await research(task, llm, model_name=ctx.researcher_model)
    except StructuredOutputError as err:
        _log.warning("node_failed", node="researcher", error=str(err))
        return {"status": "failed", "error": f"researcher: {err}"}
    metrics = NodeMetrics(
        node="researcher",
        model=result.model,
        prompt_tokens=result.prompt_tokens,
        completion_tokens=result.completion_tokens,
        seconds=round(result.seconds, 3),
    )
    _log.info("node_done", node="researcher", model=result.model, seconds=metrics.seconds)
    return {"status": "done", "brief": result.value, "metrics": [metrics]}


def build_graph() -> StateGraph[State, Context, InputState, OutputState]:
    """The graph's structure, uncompiled."""
    builder = StateGraph(
        State, context_schema=Context, input_schema=InputState, output_schema=OutputState
    )
    builder.add_node("researcher", researcher)
    builder.add_edge(START, "researcher")
    builder.add_edge("researcher", END)
    return builder


graph = build_graph().compile(name="swarm")
