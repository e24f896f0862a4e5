"""The researcher agent: turns a programming task into a structured brief."""

from __future__ import annotations

from langchain_core.messages import BaseMessage

from agents.prompts import PromptLayout, layout

MAX_TASK_CHARS = 8000

SYSTEM = """\
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

TASK = """\
{notes}Task:
{task}
"""


def researcher_messages(
    task: str, notes: str = "", order: PromptLayout = "stable_first"
) -> list[BaseMessage]:
    """The researcher's prompt: stable system part first, lookup results, the task last.

    ``order="variable_first"`` puts the lookup results and the task first (a baseline).
    """
    notes_part = f"What your lookups found:\n{notes}\n\n" if notes else ""
    user = TASK.format(notes=notes_part, task=task.strip())
    return layout(SYSTEM, user, order)
