"""The auditors' messages: one shared prefix through the code, then each auditor's own part."""

from __future__ import annotations

from itertools import takewhile

import pytest
from langchain_core.messages import BaseMessage

from agents.auditor import FOCUS, SYSTEM, auditor_messages

CODE = "def add(a, b):\n    return a + b\n"


def rendered(messages: list[BaseMessage]) -> str:
    return "".join(f"<{m.type}>{m.content}" for m in messages)


def test_the_two_auditors_share_everything_through_the_code() -> None:
    security = rendered(auditor_messages("security", CODE, "What bandit found:\n- nothing"))
    performance = rendered(auditor_messages("performance", CODE, "What the run found:\n- ok"))
    shared = sum(
        1
        for _ in takewhile(
            lambda pair: pair[0] == pair[1], zip(security, performance, strict=False)
        )
    )
    assert security.index(CODE.rstrip()) + len(CODE.rstrip()) <= shared
    assert security[shared:].startswith("security auditor. Look for security problems")
    assert performance[shared:].startswith("performance auditor. Look for performance problems")


def test_system_rules_come_first_then_code_focus_and_evidence() -> None:
    system, user = auditor_messages("security", CODE, "What bandit found:\n- B307 eval")
    assert system.content == SYSTEM
    text = str(user.content)
    assert text.index(CODE.rstrip()) < text.index(FOCUS["security"]) < text.index("B307 eval")


def test_variable_first_puts_the_code_before_the_rules() -> None:
    system, _ = auditor_messages("performance", CODE, "evidence", "variable_first")
    assert str(system.content).startswith("solution.py:\n") and str(system.content).endswith(SYSTEM)


def test_an_unknown_auditor_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown auditor 'style'"):
        auditor_messages("style", CODE, "")  # type: ignore[arg-type]
