"""The shared, typed state of the swarm graph."""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Annotated, Literal

from agents.schemas import ResearchBrief

RunStatus = Literal["running", "done", "failed"]


@dataclass(kw_only=True)
class NodeMetrics:
    """What one node's LLM call cost."""

    node: str
    """Graph node that made the call."""
    model: str
    """Model that answered."""
    prompt_tokens: int
    """Tokens sent."""
    completion_tokens: int
    """Tokens received."""
    seconds: float
    """Wall time of the call."""


@dataclass(kw_only=True)
class InputState:
    """What a caller gives the graph."""

    task: str
    """The programming task, in plain language."""


@dataclass(kw_only=True)
class OutputState:
    """What a run returns."""

    status: RunStatus = "running"
    """Whether the run finished, failed, or is still going."""
    brief: ResearchBrief | None = None
    """The researcher's structured brief."""
    error: str | None = None
    """Why the run failed, when it did."""
    metrics: Annotated[list[NodeMetrics], operator.add] = field(default_factory=list)
    """Per-node cost records; parallel branches append."""


@dataclass(kw_only=True)
class State(InputState, OutputState):
    """The whole state shared by the nodes."""
