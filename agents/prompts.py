"""How every agent's prompt is laid out; each agent's own text is in its module.

Stable parts first (role, rules, output format), the run's variable parts last, so that
requests share a long common prefix and vLLM's prefix cache serves it. Every agent's messages
are built by :func:`layout`, which can also put the variable part first: the baseline that the
prefix-cache benchmark compares with.
"""

from __future__ import annotations

import re
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
    mark = " …[truncated]"
    return text if len(text) <= limit else text[: max(0, limit - len(mark))] + mark


PROJECT = """\
The user's project (excerpts of its files, verbatim; the code runs in the project's root \
folder, beside these files):

{fence}
{project}
{fence}

Task:
"""
"""What opens a prompt's task in a run with a workspace or database: the project map's
verbatim snippets (:mod:`tools.project_map`), before the task, as a user pastes files and
then asks: quoted in one fence, as a chat user quotes pasted text. Unquoted, the 0.5B coder's
greedy plain answer was a copy of the snippets (and the task) with no function on 5 of 7 dev
tasks of bench/tasks-project probed (01, 05, 16, 38, 40 copied; 13, 20 did not); quoted,
on 2 (01 and 05)."""


def project_part(project: str) -> str:
    """The project's snippets as they precede the task (:data:`PROJECT`); "" without any.

    The fence is longer than any run of backticks in the snippets (a README's own code
    blocks), so none of them closes it.
    """
    text = project.strip()
    if not text:
        return ""
    longest = max((len(run) for run in re.findall(r"`{3,}", text)), default=0)
    return PROJECT.format(project=text, fence="`" * max(3, longest + 1))
