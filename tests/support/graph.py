"""The swarm graph against the scripted fake OpenAI-compatible server: a context for it, a
run, and the requests the run made."""

from __future__ import annotations

from typing import Any

from graphs.context import Context
from graphs.roles import every_role
from graphs.state import InputState, OutputState
from graphs.swarm import graph
from tests.fakes import FakeOpenAI


def ctx(fake: FakeOpenAI, **overrides: Any) -> Context:
    """Every role on the fake's ``big``, the fallback ``small``; one candidate a round.

    A revision's one candidate is the repair (``revision_repair``), whose prompt shows what
    the round was told; the brief is asked beside the code too (``parallel_brief``), as the
    scripts answer it; a search round runs (``search_rounds``) as the scripts expect it. Tests
    of the defaults set them off.
    """
    settings: dict[str, Any] = {
        "candidates": 1,
        "revision_candidates": 1,
        "revision_repair": True,
        "parallel_brief": True,
        "search_rounds": True,
        **overrides,
    }
    return Context(base_url=fake.base_url, **every_role("big"), fallback_model="small", **settings)


async def run(fake: FakeOpenAI, task: str = "Write `add(a, b)`.", **overrides: Any) -> OutputState:
    """One run of the graph with :func:`ctx`; its output."""
    out = await graph.ainvoke(InputState(task=task), context=ctx(fake, **overrides), version="v2")
    return out.value


def chat_bodies(fake: FakeOpenAI, schema: str | None = None) -> list[dict[str, Any]]:
    """The requests the fake received, only those asking for ``schema`` when given."""

    def name(body: dict[str, Any]) -> str:
        return str(((body.get("response_format") or {}).get("json_schema") or {}).get("name", ""))

    return [body for body in fake.requests() if schema is None or name(body) == schema]


def coder_bodies(fake: FakeOpenAI) -> list[dict[str, Any]]:
    """The coder's requests: guided code blocks, and the plain prompt's free requests."""
    return [body for body in fake.requests() if "response_format" not in body]
