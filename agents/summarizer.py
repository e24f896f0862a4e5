"""The summarizer agent: condenses what grows (lookup results) into a bounded hand-over.

The task itself always travels verbatim; only material that can grow without bound (file
contents and query rows the researcher's lookups found) goes through the summarizer, whose
:class:`agents.schemas.StageSummary` is turned into a hand-over of at most a run's
``handover_chars``.
"""

from __future__ import annotations

from langchain_core.messages import BaseMessage

from agents.prompts import PromptLayout, clip, layout
from agents.schemas import StageSummary

SYSTEM = """\
You are the summarizer in a team of software agents. You condense what one agent produced into
a short hand-over for the next agent, keeping only what that agent needs: names, signatures,
requirements, failing checks and findings. Never invent facts. Be brief.
Answer with one JSON object that follows the given schema, nothing else.
"""

INPUT = """\
Hand-over for: {audience}

Material:
{material}
"""


def summary_messages(
    audience: str, material: str, order: PromptLayout = "stable_first"
) -> list[BaseMessage]:
    """The summarizer's prompt: its rules, then who the hand-over is for and the material."""
    return layout(SYSTEM, INPUT.format(audience=audience, material=material), order)


def handover(summary: StageSummary, limit: int) -> str:
    """The summary and its key points as one text of at most ``limit`` characters."""
    points = "\n".join(f"- {point}" for point in summary.key_points)
    return clip(f"{summary.summary}\n{points}".strip(), limit)


__all__ = ["INPUT", "SYSTEM", "StageSummary", "handover", "summary_messages"]
