"""The auditors: the security and the performance auditor's prompts and messages.

Both read the same chosen code at the same time, each with its own rules and its own tool's
evidence (bandit, the timed run on large inputs; :mod:`tools.evidence`), the code last.
Tried and not kept: one system prompt for both, the code first, then each auditor's focus
and evidence, so that vLLM's prefix cache prefills the code once for the two (the 24
bench/tasks-hard references, both auditors at once on a fresh server: 7744 of 16796 prompt
tokens from the cache instead of 5952 of 15668). With anything after the code, SmolLM2-135M
went on writing findings: on 33 references with nothing found, answers of 44 tokens on
average instead of 24 (at most 327); in ``make eval``, five security audits needed a second
attempt (80-90 s each) and guided JSON was valid on the first try for 98% of calls, not 100%.

The verdict is an :class:`agents.schemas.AuditReport`; a finding only blocks when a tool's
evidence backs it (``graphs.nodes.decide``).
"""

from __future__ import annotations

from typing import Literal

from langchain_core.messages import BaseMessage

from agents.prompts import PromptLayout, layout
from agents.schemas import AuditReport

AuditorKind = Literal["security", "performance"]

SYSTEM: dict[AuditorKind, str] = {
    "security": """\
You are the security auditor in a team of software agents. You review a small Python module for
security problems: use of eval/exec on inputs, shell commands, unsafe deserialization (pickle,
yaml.load), path traversal, injection into SQL or shell strings, secrets in code, unbounded
resource use driven by input. Report only real problems in this code, worst first; approve when
there is nothing of medium severity or worse.
Answer with one JSON object that follows the given schema, nothing else.
""",
    "performance": """\
You are the performance auditor in a team of software agents. You review a small Python module
for performance problems: needless quadratic loops, repeated work inside loops, recursion
without memoization where inputs can be large, building strings or lists inefficiently. Report
only real problems in this code, worst first; approve when there is nothing of medium severity
or worse.
Answer with one JSON object that follows the given schema, nothing else.
""",
}
"""Each auditor's rules."""

TOOL: dict[AuditorKind, str] = {
    "security": "bandit (static analysis)",
    "performance": "the timed run on large inputs",
}
"""The tool whose evidence each auditor is given."""

INPUT = """\
Context:
{briefing}

solution.py:
```python
{code}
```
"""
"""What the auditor reads: what its tool found, then the code, last."""


def auditor_messages(
    kind: AuditorKind, code: str, briefing: str, order: PromptLayout = "stable_first"
) -> list[BaseMessage]:
    """An auditor's prompt: its rules, then its tool's evidence and the code."""
    if kind not in SYSTEM:
        raise ValueError(f"unknown auditor {kind!r}; one of {sorted(SYSTEM)}")
    return layout(SYSTEM[kind], INPUT.format(briefing=briefing, code=code), order)


__all__ = ["INPUT", "SYSTEM", "TOOL", "AuditReport", "AuditorKind", "auditor_messages"]
