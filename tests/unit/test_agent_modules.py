"""One module per agent: its prompt, its schema and its message builder live together."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from agents import auditor, lookups, prompts, researcher, summarizer, test_writer
from tools.check_runner import EntryPoint

TASK = "Write add(a, b) returning the sum."


@pytest.mark.parametrize(
    ("system", "messages"),
    [
        (researcher.SYSTEM, researcher.researcher_messages(TASK)),
        (lookups.SYSTEM, lookups.lookup_messages(["sql_schema"], TASK)),
        (test_writer.SYSTEM, test_writer.test_writer_messages(TASK, EntryPoint("add", "function"))),
        (summarizer.SYSTEM, summarizer.summary_messages("the coder", TASK)),
        (
            auditor.SYSTEM["security"],
            auditor.auditor_messages("security", "x = 1\n", "nothing found"),
        ),
    ],
)
def test_each_agent_builds_its_rules_then_the_run(
    system: str, messages: list[SystemMessage | HumanMessage]
) -> None:
    first, second = messages
    assert isinstance(first, SystemMessage) and first.content == system
    assert isinstance(second, HumanMessage) and system not in str(second.content)


def test_the_layout_module_holds_no_agent_prompt() -> None:
    tree = ast.parse(Path(prompts.__file__).read_text())
    texts = [
        target.id
        for node in tree.body
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
        for target in node.targets
        if isinstance(target, ast.Name)
    ]
    # PROJECT: how the project's snippets precede the task, the same for every agent given it
    assert texts == ["ANSWER_NOW", "PROJECT"]
