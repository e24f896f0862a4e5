"""The auditors' messages: each auditor's rules, then its tool's evidence, the code last."""

from __future__ import annotations

import pytest

from agents.auditor import SYSTEM, AuditorKind, auditor_messages

CODE = "def add(a, b):\n    return a + b\n"


@pytest.mark.parametrize("kind", ["security", "performance"])
def test_rules_then_evidence_then_the_code_last(kind: AuditorKind) -> None:
    system, user = auditor_messages(kind, CODE, "What bandit found:\n- B307 eval")
    assert system.content == SYSTEM[kind]
    assert f"the {kind} auditor" in str(system.content)
    text = str(user.content)
    assert text.index("B307 eval") < text.index(CODE.rstrip())
    assert text.rstrip().endswith("```") and CODE in text


def test_variable_first_puts_the_evidence_before_the_rules() -> None:
    system, _ = auditor_messages("performance", CODE, "evidence", "variable_first")
    assert str(system.content).startswith("Context:\nevidence")
    assert str(system.content).endswith(SYSTEM["performance"])


def test_an_unknown_auditor_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown auditor 'style'"):
        auditor_messages("style", CODE, "")  # type: ignore[arg-type]
