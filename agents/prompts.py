"""Prompts of every agent, in one place.

Stable parts first (role, rules, output format), the run's variable parts last, so that
requests share a long common prefix and vLLM's prefix cache serves it. Every agent's messages
are built by :func:`layout`, which can also put the variable part first: the baseline that the
prefix-cache benchmark compares with.
"""

from __future__ import annotations

from typing import Literal, get_args

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

PromptLayout = Literal["stable_first", "variable_first"]
"""Where a prompt's stable part (role, rules) goes: first (the default) or after the run's."""

ANSWER_NOW = "Answer now with the JSON object."
"""The whole user turn of a ``variable_first`` prompt; the task and rules precede it."""


def layout(system: str, user: str, order: PromptLayout = "stable_first") -> list[BaseMessage]:
    """An agent's messages from its stable ``system`` text and the run's variable ``user`` text.

    ``stable_first``: ``[system, user]``, so requests share the system prompt as a cached
    prefix. ``variable_first``: the variable text opens the system message, the rules follow
    it, and the user turn is a fixed instruction, so no two runs share a prefix.
    """
    if order not in get_args(PromptLayout):
        raise ValueError(f"unknown prompt layout {order!r}; one of {get_args(PromptLayout)}")
    if order == "variable_first":
        return [SystemMessage(user + "\n\n" + system), HumanMessage(ANSWER_NOW)]
    return [SystemMessage(system), HumanMessage(user)]


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, marked when cut: what goes into a prompt is bounded."""
    return text if len(text) <= limit else text[: limit - 15] + " …[truncated]"


RESEARCHER_SYSTEM = """\
You are the researcher in a team of software agents. You read a programming task and write a
brief for the coder: what to build and its requirements. Be precise and short. Do not write
the solution code.

Rules:
- The summary restates the task in one or two sentences.
- entry_point is the name of the function or class the coder must write (snake_case for
  functions, PascalCase for classes).
- Each requirement is one short sentence.
- Answer with one JSON object that follows the given schema, nothing else.
"""

RESEARCHER_TASK = """\
{notes}Task:
{task}
"""

SUMMARIZER_SYSTEM = """\
You are the summarizer in a team of software agents. You condense what one agent produced into
a short hand-over for the next agent, keeping only what that agent needs: names, signatures,
requirements, failing checks and findings. Never invent facts. Be brief.
Answer with one JSON object that follows the given schema, nothing else.
"""

SUMMARIZER_INPUT = """\
Hand-over for: {audience}

Material:
{material}
"""

LOOKUP_SYSTEM = """\
You are the researcher in a team of software agents. Before you write a brief for a
programming task, you may look things up with tools: search or read files of the user's
workspace, list the tables of the user's SQLite database, or run one read-only SELECT on it.
Plan at most three lookups that help you understand the task; plan none if the task is clear.
Answer with one JSON object that follows the given schema, nothing else.
"""

LOOKUP_TASK = """\
Available tools: {tools}

Task:
{task}
"""
