"""Scripted answers for the fake OpenAI-compatible server (``FakeOpenAI.script``): one dict per
model call, picked by the JSON schema the call asks for (``"schema"``, ``""`` for the coder's
grammar-guided code block) and, optionally, by a text its prompt ``"contains"``."""

from __future__ import annotations

import json
from typing import Any

from tests.fakes import FakeOpenAI

GOOD_CODE = "def add(a, b):\n    return a + b\n"
BAD_CODE = "def add(a, b):\n    return a - b\n"
CHECKS = [{"call": "add(2, 3)", "expected": "5"}, {"call": "add(-1, 1)", "expected": "0"}]
BRIEF = {
    "summary": "Add two numbers.",
    "kind": "function",
    "entry_point": "add",
    "requirements": ["Return the sum of a and b."],
}
"""A researcher's brief for ``add(a, b)``."""


def summary(text: str = "Write add(a, b).") -> dict[str, Any]:
    return {"schema": "StageSummary", "content": json.dumps({"summary": text, "key_points": []})}


def code(source: str, **extra: Any) -> dict[str, Any]:
    """A coder candidate: a fenced block, asked for without a JSON schema (a grammar)."""
    return {"schema": "", "content": f"```python\n{source}```", **extra}


def suite(checks: list[dict[str, str]] | None = None) -> dict[str, Any]:
    return {"schema": "TestSuite", "content": json.dumps({"checks": checks or CHECKS})}


def audit(
    kind: str, verdict: str = "approve", findings: list[dict[str, str]] | None = None
) -> dict[str, str]:
    body = {"verdict": verdict, "findings": findings or []}
    return {"schema": "AuditReport", "contains": f"the {kind} auditor", "content": json.dumps(body)}


def brief(**changes: Any) -> dict[str, Any]:
    return {"schema": "ResearchBrief", "content": json.dumps({**BRIEF, **changes})}


def round_steps(source: str) -> list[dict[str, Any]]:
    """One round's answers: a candidate, the test writer's checks, both auditors."""
    return [code(source), suite(), *audits()]


def audits() -> list[dict[str, Any]]:
    return [audit("security"), audit("performance")]


def plan(*calls: dict[str, object]) -> dict[str, object]:
    """The researcher's lookup plan: these tool calls."""
    return {"schema": "LookupPlan", "content": json.dumps({"lookups": list(calls)})}


def approve_script(fake: FakeOpenAI) -> None:
    """Script one whole run that approves :data:`GOOD_CODE` in its first round."""
    fake.script(brief(), summary(), *round_steps(GOOD_CODE))
