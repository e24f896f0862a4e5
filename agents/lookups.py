"""The researcher's tool lookups: a call schema derived from the tools' argument models.

The researcher may look things up before writing its brief: search or read the run's
workspace, list the tables of its database, or query it read-only. Which tools it may call
depends on what the run provides. The schema of a call is built from each tool's own
pydantic argument model, so guided decoding can only produce calls that validate.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal, Union

from langchain_core.messages import BaseMessage
from pydantic import BaseModel, ConfigDict, Field, create_model

from agents.prompts import PromptLayout, clip, layout
from tools.dispatch import TOOLS, ToolContext, ToolError, dispatch

WORKSPACE_TOOLS = ("workspace_search", "workspace_read")
DATABASE_TOOLS = ("sql_schema", "sql_query")
MAX_LOOKUPS = 3
RESULT_CHARS = 900

SYSTEM = """\
You are the researcher in a team of software agents. Before you write a brief for a
programming task, you may look things up with tools: search or read files of the user's
workspace, list the tables of the user's SQLite database, or run one read-only SELECT on it.
Plan at most three lookups that help you understand the task; plan none if the task is clear.
Answer with one JSON object that follows the given schema, nothing else.
"""

TASK = """\
Available tools: {tools}

Task:
{task}
"""


def lookup_messages(
    tools: list[str], task: str, order: PromptLayout = "stable_first"
) -> list[BaseMessage]:
    """The lookup plan's prompt: its rules, then the tools the run offers and the task."""
    return layout(SYSTEM, TASK.format(tools=", ".join(tools), task=task), order)


def available_tools(workspace: bool, database: bool) -> list[str]:
    """The lookup tools a run may use, given what it provides."""
    return [*(WORKSPACE_TOOLS if workspace else ()), *(DATABASE_TOOLS if database else ())]


def _call_model(name: str) -> type[BaseModel]:
    tool_type: Any = Literal[name]
    return create_model(
        f"{''.join(part.title() for part in name.split('_'))}Call",
        __config__=ConfigDict(extra="forbid"),
        tool=(tool_type, Field(description=TOOLS[name].description)),
        arguments=(TOOLS[name].args_model, ...),
    )


def lookup_plan_schema(tools: list[str]) -> type[BaseModel]:
    """A ``LookupPlan`` model whose calls may use exactly ``tools``."""
    if not tools:
        raise ValueError("a lookup plan needs at least one tool")
    calls: list[type[BaseModel]] = [_call_model(name) for name in tools]
    union: Any = calls[0] if len(calls) == 1 else Union[tuple(calls)]  # noqa: UP007
    call_type: Any = Annotated[union, Field(discriminator="tool")] if len(calls) > 1 else union
    return create_model(
        "LookupPlan",
        __config__=ConfigDict(extra="forbid"),
        __doc__="The lookups the researcher wants before writing its brief.",
        lookups=(
            list[call_type],
            Field(
                max_length=MAX_LOOKUPS, description="At most three tool calls, most useful first."
            ),
        ),
    )


def run_lookups(plan: BaseModel, context: ToolContext) -> str:
    """Run each planned call; their results (or errors) as bounded text for the brief."""
    notes: list[str] = []
    for call in getattr(plan, "lookups", []):
        arguments = call.arguments.model_dump()
        outcome = dispatch(call.tool, arguments, context)
        if isinstance(outcome, ToolError):
            status, text = "error", f"{outcome.error} ({outcome.kind or '-'}): {outcome.message}"
        else:
            status, text = "result", _render(outcome.output)
        text = clip(text, RESULT_CHARS)
        shown = _short(call.arguments.model_dump(exclude_defaults=True))
        notes.append(f"{call.tool}({shown}) {status}: {text}")
    return "\n".join(notes)


def _render(output: dict[str, Any]) -> str:
    """Tool output as compact text; a schema listing as ``table(column type, ...)``."""
    tables = output.get("tables")
    if isinstance(tables, list):
        return "; ".join(
            f"{t['name']}({', '.join(c['name'] + ' ' + c['type'] for c in t['columns'])})"
            for t in tables
        )
    return json.dumps(output, separators=(",", ":"))


def _short(arguments: dict[str, Any]) -> str:
    shown = ", ".join(f"{key}={value!r}" for key, value in arguments.items() if value)
    return shown[:160]
