"""Run one candidate solution against a list of checks in the sandbox, one verdict per check.

The gate comes first and needs no sandbox: the code must parse and define the entry point
(a function with the task's parameters, or a class). Then one sandboxed process imports the
candidate and runs every check with its own time limit, so a check that loops or raises does
not hide the others; each verdict says what the call returned, for the next revision.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from agents.examples import Check, EntryPoint
from tools.pysource import parse
from tools.sandbox import SandboxConfig, SandboxUnavailable, run_python

_MARK = "EDGESWARM-CHECKS "
_GOT_CHARS = 160

SAME_SOURCE = '''\
def same(got, want):
    """Whether a call returned the expected value: floats within a tolerance, True is not 1."""
    numbers = (int, float)
    if isinstance(got, float) or isinstance(want, float):
        return (
            isinstance(got, numbers)
            and isinstance(want, numbers)
            and math.isclose(got, want, rel_tol=1e-6, abs_tol=1e-9)
        )
    return got == want and isinstance(got, bool) == isinstance(want, bool)
'''
"""How every check compares (the sandboxed run and the test_solution.py a run writes); the
module that runs it imports ``math``."""

_HARNESS = """\
import json, math, signal, sys
MARK = {mark!r}
CHECKS = json.loads({checks!r})
LIMIT = {per_check_s!r}

{same}

def alarm(*_):
    raise TimeoutError("the call ran past its time limit")

signal.signal(signal.SIGALRM, alarm)
try:
    signal.setitimer(signal.ITIMER_REAL, LIMIT * 2)
    import solution
    signal.setitimer(signal.ITIMER_REAL, 0)
except BaseException as err:
    print(MARK + json.dumps({{"import_error": f"{{type(err).__name__}}: {{err}}"[:300]}}))
    sys.exit(0)
names = {{k: v for k, v in vars(solution).items() if not k.startswith("__")}}
results = []
for check in CHECKS:
    env = dict(names)
    verdict = {{"ok": False, "got": "", "error": ""}}
    try:
        signal.setitimer(signal.ITIMER_REAL, LIMIT)
        for line in check["setup"]:
            exec(line, env)
        if check["raises"]:
            try:
                got = eval(check["call"], env)
            except Exception as err:
                verdict["ok"] = type(err).__name__ == check["raises"]
                verdict["got"] = f"raised {{type(err).__name__}}"
            else:
                verdict["got"] = repr(got)[:{got_chars}]
        else:
            got = eval(check["call"], env)
            verdict["got"] = repr(got)[:{got_chars}]
            verdict["ok"] = bool(same(got, eval(check["expected"], env)))
    except BaseException as err:
        verdict["error"] = f"{{type(err).__name__}}: {{err}}"[:300]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    results.append(verdict)
print(MARK + json.dumps({{"results": results}}))
"""


@dataclass(frozen=True)
class Verdict:
    """One check's outcome on one candidate."""

    ok: bool
    got: str = ""
    """repr of what the call returned (clipped), or what it raised."""
    error: str = ""
    """The exception the setup, call or expected value raised, if any."""


@dataclass(frozen=True)
class CandidateRun:
    """A candidate's gate and its verdict on every check, in the checks' order."""

    gate: str
    """"" when the candidate passed the gate, else why it did not."""
    verdicts: tuple[Verdict, ...] = field(default_factory=tuple)

    @property
    def passed(self) -> tuple[bool, ...]:
        """Which checks passed."""
        return tuple(v.ok for v in self.verdicts)


def gate(code: str, entry: EntryPoint | None) -> str:
    """Why ``code`` cannot be a solution ("" when it can): no parse, or no entry point."""
    try:
        tree = parse(code)
    except SyntaxError as err:
        return f"syntax error: {err.msg} (line {err.lineno})"
    if entry is None:
        return ""
    for node in tree.body:
        if entry.kind == "function" and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if node.name != entry.name:
                continue
            names = tuple(a.arg for a in node.args.args)
            flexible = node.args.vararg is not None
            if not flexible and len(names) < len(entry.parameters):
                return f"{entry.name} takes {names}, the task gives {entry.parameters}"
            return ""
        if entry.kind == "class" and isinstance(node, ast.ClassDef) and node.name == entry.name:
            return ""
    return f"solution.py defines no top-level {entry.kind} {entry.name}"


def _payload(checks: Sequence[Check]) -> str:
    return json.dumps(
        [
            {"call": c.call, "expected": c.expected, "setup": list(c.setup), "raises": c.raises}
            for c in checks
        ]
    )


def run_checks(
    code: str,
    checks: Sequence[Check],
    entry: EntryPoint | None,
    *,
    per_check_s: float = 2.0,
    timeout_s: float = 20.0,
    gated: str | None = None,
    project: Mapping[str, str | bytes] | None = None,
    config: SandboxConfig | None = None,
) -> CandidateRun:
    """Gate ``code``, then run ``checks`` against it in one sandboxed process.

    ``gated``: the gate's answer when the caller has it already (one parse of ``code``, not
    one per run). ``project``: the user's files to put beside solution.py, at their relative
    paths (:class:`tools.project_files.ProjectFiles`), as the code will run among them;
    ``config``: the sandbox's settings (the project's packages importable).

    Raises:
        SandboxUnavailable: the sandbox could not run anything.
    """
    why = gate(code, entry) if gated is None else gated
    if why or not checks:
        return CandidateRun(gate=why)
    harness = _HARNESS.format(
        mark=_MARK,
        checks=_payload(checks),
        per_check_s=per_check_s,
        got_chars=_GOT_CHARS,
        same=SAME_SOURCE,
    )
    budget = min(timeout_s, per_check_s * (len(checks) + 2) + 2)
    files = {**(project or {}), "solution.py": code}
    result = run_python(harness, files=files, timeout_s=budget, config=config)
    line = next((ln for ln in result.stdout.splitlines() if ln.startswith(_MARK)), None)
    if line is None:
        reason = "timed out" if result.timed_out else f"exit {result.exit_code}"
        return CandidateRun(gate=f"the checks did not finish ({reason}): {result.stderr[-200:]}")
    data = json.loads(line[len(_MARK) :])
    if "import_error" in data:
        return CandidateRun(gate=f"import failed: {data['import_error']}")
    verdicts = tuple(Verdict(bool(v["ok"]), v["got"], v["error"]) for v in data["results"])
    return CandidateRun(gate="", verdicts=verdicts)


__all__ = ["CandidateRun", "SandboxUnavailable", "Verdict", "gate", "run_checks"]
