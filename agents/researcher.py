"""The researcher agent: turns a programming task into a structured brief."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage

from agents.prompts import RESEARCHER_SYSTEM, RESEARCHER_TASK, PromptLayout, layout
from agents.schemas import ResearchBrief
from agents.structured import StructuredResult, ainvoke_structured

MAX_TASK_CHARS = 8000


def researcher_messages(
    task: str, notes: str = "", order: PromptLayout = "stable_first"
) -> list[BaseMessage]:
    """The researcher's prompt: stable system part first, lookup results, the task last.

    ``order="variable_first"`` puts the lookup results and the task first (a baseline).
    """
    notes_part = f"What your lookups found:\n{notes}\n\n" if notes else ""
    user = RESEARCHER_TASK.format(notes=notes_part, task=task.strip())
    return layout(RESEARCHER_SYSTEM, user, order)


async def research(
    task: str, llm: BaseChatModel, *, model_name: str
) -> StructuredResult[ResearchBrief]:
    """Analyse ``task`` and return a validated :class:`ResearchBrief`."""
    return await ainvoke_structured(
        llm, ResearchBrief, researcher_messages(task), model_name=model_name
    )
