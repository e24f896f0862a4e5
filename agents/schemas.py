"""Output schemas of the agents: every string and list bounded, every choice an enum.

Guided decoding makes vLLM follow these schemas token by token; the bounds make sure an
answer can also end inside its token budget (see :func:`agents.structured.token_budget`).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

TaskKind = Literal["function", "class", "script", "data_query", "refactor", "other"]
ShortText = Annotated[str, Field(min_length=1, max_length=100)]


class ResearchBrief(BaseModel):
    """The researcher's structured analysis of a programming task.

    The checks are the test writer's and the statement's own; the brief says what the task
    asks for, so a reader sees how the swarm understood it, and names the entry point when
    the statement does not.
    """

    model_config = ConfigDict(extra="forbid")

    summary: str = Field(
        min_length=1, max_length=240, description="The task restated in one or two sentences."
    )
    kind: TaskKind = Field(description="What sort of code the task asks for.")
    entry_point: str = Field(
        min_length=1, max_length=60, description="Name of the main function or class to write."
    )
    requirements: list[ShortText] = Field(
        min_length=1,
        max_length=5,
        description="Functional requirements, one short sentence each (max 100 characters).",
    )


Severity = Literal["info", "low", "medium", "high", "critical"]
AuditVerdict = Literal["approve", "revise"]


class StageSummary(BaseModel):
    """A summarizer's condensed hand-over from one stage to the next."""

    model_config = ConfigDict(extra="forbid")

    summary: str = Field(min_length=1, max_length=500, description="What the next agent needs.")
    key_points: list[ShortText] = Field(
        max_length=4, description="The most important facts, one short sentence each."
    )


class CheckCase(BaseModel):
    """One check of the code: a call and the value it must return."""

    model_config = ConfigDict(extra="forbid")

    call: str = Field(min_length=1, max_length=120, description="A Python call, e.g. add(2, 3).")
    expected: str = Field(
        min_length=1, max_length=120, description="The value it must return, as Python source."
    )


class Finding(BaseModel):
    """One problem an auditor found."""

    model_config = ConfigDict(extra="forbid")

    severity: Severity = Field(description="How serious the problem is.")
    title: str = Field(min_length=1, max_length=80, description="The problem in a few words.")
    detail: str = Field(max_length=200, description="Where it is and how to fix it.")


class AuditReport(BaseModel):
    """An auditor's verdict on the code."""

    model_config = ConfigDict(extra="forbid")

    verdict: AuditVerdict = Field(description="approve, or revise when a finding must be fixed.")
    findings: list[Finding] = Field(max_length=4, description="Problems found, worst first.")
