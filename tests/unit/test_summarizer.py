"""agents.summarizer: the summarizer's prompt (who the hand-over is for, the material) and the
bounded hand-over it turns a summary into."""

from __future__ import annotations

from langchain_core.messages import HumanMessage, SystemMessage

from agents import summarizer
from agents.prompts import ANSWER_NOW


def test_the_summarizer_hand_over_is_bounded() -> None:
    summary = summarizer.StageSummary(summary="Adds numbers.", key_points=["a" * 100] * 4)
    text = summarizer.handover(summary, 300)
    assert len(text) <= 300 and text.startswith("Adds numbers.\n- a")


def test_the_summarizer_is_told_who_the_hand_over_is_for_then_the_material() -> None:
    system, user = summarizer.summary_messages("the coder", "rows: 1, 2")
    assert system == SystemMessage(summarizer.SYSTEM)
    assert user == HumanMessage("Hand-over for: the coder\n\nMaterial:\nrows: 1, 2\n")
    first, answer = summarizer.summary_messages("the coder", "rows: 1, 2", "variable_first")
    assert str(first.content).startswith("Hand-over for: the coder\n")
    assert str(first.content).endswith(summarizer.SYSTEM) and answer == HumanMessage(ANSWER_NOW)


def test_a_hand_over_that_fits_is_kept_whole_and_one_that_does_not_is_marked_cut() -> None:
    summary = summarizer.StageSummary(summary="Adds numbers.", key_points=["a is an int", "b too"])
    assert summarizer.handover(summary, 300) == "Adds numbers.\n- a is an int\n- b too"
    alone = summarizer.StageSummary(summary="Only this.", key_points=[])
    assert summarizer.handover(alone, 300) == "Only this."
    cut = summarizer.handover(summary, 24)
    assert len(cut) <= 24 and cut.startswith("Adds numb") and cut.endswith(" …[truncated]")
