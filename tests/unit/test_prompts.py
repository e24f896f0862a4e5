"""agents.prompts: how every agent's prompt is laid out (stable part first, or the baseline
with the run's part first), the clipping that bounds what goes into a prompt, and the
project's snippets that precede a task."""

from __future__ import annotations

import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from agents.prompts import ANSWER_NOW, PROJECT, clip, layout, project_part


def test_the_stable_part_opens_the_prompt_unless_the_baseline_asks_otherwise() -> None:
    assert layout("rules", "task") == [SystemMessage("rules"), HumanMessage("task")]
    assert layout("rules", "task", "variable_first") == [
        SystemMessage("task\n\nrules"),
        HumanMessage(ANSWER_NOW),
    ]
    # two runs share the whole system message as a prefix only in the stable layout
    one, two = layout("rules", "task one"), layout("rules", "task two")
    assert one[0] == two[0]
    one, two = layout("rules", "task one", "variable_first"), layout("rules", "b", "variable_first")
    assert one[0] != two[0] and one[1] == two[1]
    with pytest.raises(ValueError, match="unknown prompt layout 'upside_down'"):
        layout("rules", "task", "upside_down")  # type: ignore[arg-type]


def test_clip_keeps_text_that_fits_and_marks_what_it_cuts() -> None:
    assert clip("abc", 3) == "abc" and clip("", 0) == ""
    text = "x" * 100
    assert clip(text, 100) == text
    cut = clip(text, 50)
    assert len(cut) == 50 and cut.endswith(" …[truncated]") and cut.startswith("x" * 30)


def test_the_projects_snippets_come_before_the_task_or_not_at_all() -> None:
    part = project_part("\n# pricing.py\nVAT = 0.2\n\n")
    assert part == PROJECT.format(project="# pricing.py\nVAT = 0.2", fence="```")
    assert part.startswith("The user's project (excerpts of its files, verbatim;")
    assert part.endswith("\n\n```\n# pricing.py\nVAT = 0.2\n```\n\nTask:\n")  # quoted
    assert project_part("") == "" and project_part(" \n\t") == ""


def test_a_readmes_own_code_block_does_not_close_the_projects_quote() -> None:
    part = project_part("# README.md\nRun it:\n```sh\nmake demo\n```\n\n# a.py\nX = 1")
    assert "\n````\n# README.md\n" in part and "\nX = 1\n````\n\nTask:\n" in part
