"""The researcher agent: turns a programming task into a structured brief."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from agents.prompts import RESEARCHER_SYSTEM, RESEARCHER_TASK
from agents.schemas import ResearchBrief
from agents.structured import StructuredResult, ainvoke_structured

MAX_TASK_CHARS = 8000


def researcher_messages(task: str, notes: str = "") -> list[BaseMessage]:
    """The researcher's prompt: stable system part first, lookup results, the task last."""
    notes_part = f"What your lookups found:\n{notes}\n\n" if notes else ""
    return [
        SystemMessage(RESEARCHER_SYSTEM),
        HumanMessage(RESEARCHER_TASK.format(notes=notes_part, task=task.strip())),
    ]


async def research(
    task: str, llm: BaseChatModel, *, model_name: str
) -> StructuredResult[ResearchBrief]:
    """Analyse ``task`` and return a validated :class:`ResearchBrief`."""
    return await ainvoke_structured(
        llm, ResearchBrief, researcher_messages(task), model_name=model_name
    )
