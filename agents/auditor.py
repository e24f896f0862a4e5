"""The auditors: the security and the performance auditor's prompt and messages.

Both read the same chosen code at the same time, each with its own focus and its own tool's
evidence (bandit, the timed run on large inputs; :mod:`tools.evidence`). Their messages share
everything up to the end of the code: one system prompt for both, then the code, then what
is the auditor's own (its focus, what its tool found). vLLM's prefix cache then prefills the
code once for the two of them; with a system prompt of each auditor's own, the code came
after the first difference and was prefilled twice.

The verdict is an :class:`agents.schemas.AuditReport`; a finding only blocks when a tool's
evidence backs it (``graphs.nodes.decide``).
"""

from __future__ import annotations

from typing import Literal

from langchain_core.messages import BaseMessage

from agents.prompts import PromptLayout, layout
from agents.schemas import AuditReport

AuditorKind = Literal["security", "performance"]

SYSTEM = """\
You are an auditor in a team of software agents. You review a small Python module for one kind
of problem, named after the code, with what a tool found in it. Report only real problems in
this code, worst first; approve when there is nothing of medium severity or worse.
Answer with one JSON object that follows the given schema, nothing else.
"""

FOCUS: dict[AuditorKind, str] = {
    "security": """\
You are the security auditor. Look for security problems: use of eval/exec on inputs, shell
commands, unsafe deserialization (pickle, yaml.load), path traversal, injection into SQL or
shell strings, secrets in code, unbounded resource use driven by input.""",
    "performance": """\
You are the performance auditor. Look for performance problems: needless quadratic loops,
repeated work inside loops, recursion without memoization where inputs can be large, building
strings or lists inefficiently.""",
}
"""Each auditor's own part of its prompt, after the code."""

TOOL: dict[AuditorKind, str] = {
    "security": "bandit (static analysis)",
    "performance": "the timed run on large inputs",
}
"""The tool whose evidence each auditor is given."""

INPUT = """\
solution.py:
```python
{code}
```

{focus}

{briefing}
"""


def auditor_messages(
    kind: AuditorKind, code: str, briefing: str, order: PromptLayout = "stable_first"
) -> list[BaseMessage]:
    """An auditor's prompt: the shared rules, the code, then its focus and its evidence."""
    if kind not in FOCUS:
        raise ValueError(f"unknown auditor {kind!r}; one of {sorted(FOCUS)}")
    user = INPUT.format(code=code.rstrip("\n"), focus=FOCUS[kind], briefing=briefing.strip())
    return layout(SYSTEM, user, order)


__all__ = ["FOCUS", "INPUT", "SYSTEM", "TOOL", "AuditReport", "AuditorKind", "auditor_messages"]
