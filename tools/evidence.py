"""What the auditors decide on: a real static analyser's report and a timed run on large inputs.

- Security: bandit scans the chosen solution.py (static analysis: the code is read, never
  run). An issue of high severity, or of medium severity found with high confidence, is
  blocking evidence.
- Performance: the calls of the checks the code passed are run again in the sandbox with
  every string and list argument grown to about :data:`LARGE_ITEMS` items, each under a time
  limit. A call that does not finish in time is blocking evidence.

An auditor model turns this evidence into findings; only evidence blocks a run.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tools.check_runner import Check, EntryPoint, run_checks
from tools.pysource import parse
from tools.sandbox import SandboxConfig

LARGE_ITEMS = 3000
"""About how long the performance probe makes each string and list argument."""
LARGE_CALL_LIMIT_S = 2.0
"""Seconds one large call may take before it is blocking evidence."""
_BANDIT_TIMEOUT_S = 60
_MAX_ITEMS = 6


@dataclass(frozen=True)
class Evidence:
    """One fact a tool established about the code."""

    tool: str
    """bandit, or the performance probe."""
    text: str
    """What was found, in one line."""
    blocking: bool
    """Whether it must be fixed before the code is approved."""


def bandit_scan(code: str) -> list[Evidence]:
    """Bandit's issues in ``code`` (static analysis; nothing is executed).

    Raises:
        RuntimeError: bandit could not run or its report could not be read.
    """
    with tempfile.TemporaryDirectory(prefix="edgeswarm-bandit-") as folder:
        path = Path(folder) / "solution.py"
        path.write_text(code, encoding="utf-8")
        done = subprocess.run(
            [sys.executable, "-m", "bandit", "-q", "-f", "json", str(path)],
            capture_output=True,
            text=True,
            timeout=_BANDIT_TIMEOUT_S,
            check=False,
        )
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError as err:
        raise RuntimeError(
            f"bandit gave no report (exit {done.returncode}): {done.stderr[-300:]}"
        ) from err
    found: list[Evidence] = []
    for issue in report.get("results", [])[:_MAX_ITEMS]:
        severity, confidence = issue["issue_severity"], issue["issue_confidence"]
        blocking = severity == "HIGH" or (severity == "MEDIUM" and confidence == "HIGH")
        text = (
            f"{issue['test_id']} {severity.lower()} severity, {confidence.lower()} confidence, "
            f"line {issue['line_number']}: {issue['issue_text']}"
        )
        found.append(Evidence("bandit", text[:240], blocking))
    return found


def _grown(node: ast.expr) -> ast.expr:
    """A literal string or list argument repeated to about :data:`LARGE_ITEMS` items."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value:
        times = max(2, LARGE_ITEMS // len(node.value))
    elif isinstance(node, ast.List) and node.elts:
        times = max(2, LARGE_ITEMS // len(node.elts))
    else:
        return node
    return ast.BinOp(left=node, op=ast.Mult(), right=ast.Constant(times))


def large_call(call: str) -> str | None:
    """``call`` with its string and list arguments grown; None when nothing grows."""
    try:
        tree = parse(call, mode="eval")
    except SyntaxError:
        return None
    if not isinstance(tree.body, ast.Call):
        return None
    grown = [_grown(arg) for arg in tree.body.args]
    if all(new is old for new, old in zip(grown, tree.body.args, strict=True)):
        return None
    tree.body.args = grown
    return ast.unparse(tree)


def performance_probe(
    code: str,
    checks: list[Check],
    passed: list[bool],
    entry: EntryPoint | None,
    project: Mapping[str, str | bytes] | None = None,
    config: SandboxConfig | None = None,
) -> list[Evidence]:
    """Time the passed checks' calls on large inputs; a call that runs too long blocks.

    ``project`` and ``config``: the user's files beside the code, as its checks ran.
    """
    calls = []
    for check, ok in zip(checks, passed, strict=True):
        large = large_call(check.call) if ok and not check.setup else None
        if large is not None and large not in calls:
            calls.append(large)
    calls = calls[:_MAX_ITEMS]
    if not calls:
        return []
    probes = [Check(call, "None", "probe") for call in calls]
    run = run_checks(
        code, probes, entry, per_check_s=LARGE_CALL_LIMIT_S, timeout_s=60, project=project
    )
    found: list[Evidence] = []
    for call, verdict in zip(calls, run.verdicts, strict=False):
        shown = call if len(call) <= 120 else call[:117] + "..."
        if verdict.error.startswith("TimeoutError"):
            text = f"{shown} did not finish within {LARGE_CALL_LIMIT_S:.0f} s"
            found.append(Evidence("performance probe", text, True))
        elif verdict.error:
            text = f"{shown} raised {verdict.error[:100]} on a large input"
            found.append(Evidence("performance probe", text, False))
        else:
            found.append(Evidence("performance probe", f"{shown} finished in time", False))
    return found
