"""Run one candidate solution against a list of checks in the sandbox, one verdict per check.

The gate comes first and needs no sandbox: the code must parse and define the entry point
(a function with the task's parameters, or a class). Then one sandboxed run imports the
candidate and runs every check with its own time limit, so a check that loops or raises does
not hide the others; each verdict says what the call returned, for the next revision.

The verdict is not read from the candidate's stdout, which it can print anything on (issue 41:
a forged summary line followed by an exit passed every check). The harness's trusted parent
runs the candidate in a forked child, judges the child's reports and writes the verdict on a
private channel the child closed before importing the candidate (see :data:`_HARNESS`).
"""

from __future__ import annotations

import ast
import json
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from tools.pysource import parse
from tools.sandbox import (
    HARNESS_LIB,
    SandboxConfig,
    SandboxUnavailable,
    private_frames,
    run_python,
)

CheckSource = Literal["statement", "project", "writer", "probe", "peer"]
"""statement: the task's own example; project: a call on the user's own data that must return
a value (:func:`agents.examples.project_checks`); writer: the test writer's; probe: an input
only observed, never judged (:mod:`agents.probes`); peer: an assert a candidate wrote, used
only to rank candidates (:mod:`agents.peer_tests`)."""


@dataclass(frozen=True)
class Check:
    """One executable check: optional setup statements, a call, and its expected value."""

    call: str
    """A Python expression, e.g. ``add(2, 3)``."""
    expected: str
    """The value it must return, as Python source; unused when ``raises`` is set."""
    source: CheckSource
    """Where the check came from."""
    setup: tuple[str, ...] = ()
    """Statements run before the call (a doctest's earlier lines: ``s = Stack()``)."""
    raises: str | None = None
    """The exception class name the call must raise instead of returning."""

    def key(self) -> tuple[tuple[str, ...], str]:
        """What the check runs (its setup and call), whatever it expects.

        Two checks with the same key make the same call. The setup as a tuple (a check revived
        from a checkpoint holds a list).
        """
        return tuple(self.setup), self.call

    def label(self) -> str:
        """The check as one line of Python a person reads: ``f(1) == 2``."""
        prefix = "; ".join(self.setup)
        body = (
            f"{self.call} raises {self.raises}"
            if self.raises
            else f"{self.call} == {self.expected}"
        )
        return f"{prefix}; {body}" if prefix else body


@dataclass(frozen=True)
class EntryPoint:
    """What the task asks to write: a function or a class, its name and parameters."""

    name: str
    kind: Literal["function", "class"]
    parameters: tuple[str, ...] = ()
    """Positional parameter names (a class: its constructor's, without self)."""


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

_HARNESS_BODY = r'''
import math

REPR_CHARS = 50_000
NODES = 10_000


def plain(value):
    """Whether ``repr(value)`` reads back, through ``ast.literal_eval``, as an equal value of the
    same types: builtins only (no subclass, no nan or inf, no cycle), within NODES items."""
    budget = [NODES]

    def walk(x, depth):
        budget[0] -= 1
        if budget[0] < 0 or depth > 50:
            return False
        t = type(x)
        if x is None or t in (bool, int, str, bytes):
            return True
        if t is float:
            return math.isfinite(x)
        if t is complex:
            return math.isfinite(x.real) and math.isfinite(x.imag)
        if t in (list, tuple, set):
            return all(walk(v, depth + 1) for v in x)
        if t is dict:
            return all(walk(k, depth + 1) and walk(v, depth + 1) for k, v in x.items())
        return False

    return walk(value, 0)


def alarm(*_):
    raise TimeoutError("the call ran past its time limit")


def checks_child(link, calls, limit, got_chars):
    """In the child: import the solution, run each check's setup and call, report what it
    returned or raised; compare only when the parent sends the expected expression."""
    signal.signal(signal.SIGALRM, alarm)
    # The harness starts without site (run_python(site=False)): the solution still finds the
    # interpreter's site-packages, after the stdlib as with site, but no .pth file is run;
    # and the builtins site adds (exit, quit, copyright, help) are there, as in the grading.
    import site

    sys.path.extend(d for d in site.getsitepackages() if d not in sys.path)
    site.setquit()
    site.setcopyright()
    site.sethelper()
    try:
        signal.setitimer(signal.ITIMER_REAL, limit * 2)
        import solution

        signal.setitimer(signal.ITIMER_REAL, 0)
    except BaseException as err:
        signal.setitimer(signal.ITIMER_REAL, 0)
        link.send({"import_error": f"{type(err).__name__}: {err}"[:300]})
        return
    link.send({"imported": True})
    names = {k: v for k, v in vars(solution).items() if not k.startswith("__")}
    for i, check in enumerate(calls):
        env = dict(names)
        report = {"i": i}
        returned = False
        try:
            signal.setitimer(signal.ITIMER_REAL, limit)
            for line in check["setup"]:
                exec(line, env)
            try:
                got = eval(check["call"], env)
            except Exception as err:
                report["raised"] = type(err).__name__
                report["error"] = f"{type(err).__name__}: {err}"[:300]
            else:
                text = repr(got)
                report["got"] = text[:got_chars]
                returned = True
                if len(text) <= REPR_CHARS and plain(got):
                    report["repr"] = text
        except BaseException as err:
            report["error"] = f"{type(err).__name__}: {err}"[:300]
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        link.send(report)
        expected = link.recv().get("expected")
        if expected is None or not returned:
            continue
        answer = {"i": i, "ok": False, "error": ""}
        try:
            signal.setitimer(signal.ITIMER_REAL, limit)
            answer["ok"] = bool(same(got, eval(expected, env)))
        except BaseException as err:
            answer["error"] = f"{type(err).__name__}: {err}"[:300]
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        link.send(answer)


NOT_LITERAL = object()


def literal(source):
    import ast  # in the parent only, after the fork

    try:
        return ast.literal_eval(source)
    except Exception:  # not a literal (or one too deep to read): the child evaluates it
        return NOT_LITERAL


def raised_as(raised, wanted):
    """Whether an exception of class name ``raised`` is a ``wanted``, as ``except`` reads it:
    the same name, or a built-in subclass of a built-in (ValueError is an Exception)."""
    import builtins

    if raised == wanted:
        return True
    kinds = getattr(builtins, raised, None), getattr(builtins, wanted, None)
    return all(isinstance(k, type) and issubclass(k, BaseException) for k in kinds) and (
        issubclass(kinds[0], kinds[1])
    )


def judge(report, want, got_chars):
    """(verdict, expected source for the child or None) from the child's report of one call."""
    got = str(report.get("got", ""))[:got_chars]
    error = str(report.get("error", ""))[:300]
    if isinstance(report.get("raised"), str):
        raised = report["raised"]
        if want["raises"]:
            ok = raised_as(raised, want["raises"])
            return {"ok": ok, "got": f"raised {raised}", "error": ""}, None
        return {"ok": False, "got": "", "error": error}, None
    if error or "got" not in report or want["raises"]:
        return {"ok": False, "got": got, "error": error}, None
    expected = literal(want["expected"])
    text = report.get("repr")
    value = NOT_LITERAL if expected is NOT_LITERAL or not isinstance(text, str) else literal(text)
    if value is NOT_LITERAL:
        # The value (a custom object, a subclass, nan) or the expected expression (a name from
        # the solution) is not a literal: the child compares, as the old harness did.
        return {"ok": False, "got": got, "error": ""}, want["expected"]
    try:
        return {"ok": bool(same(value, expected)), "got": text[:got_chars], "error": ""}, None
    except Exception as err:
        return {"ok": False, "got": got, "error": f"{type(err).__name__}: {err}"[:300]}, None


TIMEOUT = "TimeoutError: the call ran past its time limit"


def run(child, calls, wants, limit, got_chars, deadline):
    """The verdict: {"results": [...]}, {"import_error": ...} or {"unfinished": ...}."""
    grace = 0.5 + limit / 4

    def wait(seconds):
        until = min(time.monotonic() + seconds + grace, deadline)
        message = child.recv(until)
        if isinstance(message, Ended) and message.kind == "late" and until == deadline:
            message.kind = "unfinished"
        return message

    first = wait(limit * 2)
    if isinstance(first, Ended):
        if first.kind == "unfinished":
            return {"unfinished": "timed out"}
        return {"import_error": TIMEOUT if first.kind == "late" else first.why}
    if "import_error" in first:
        return {"import_error": str(first["import_error"])[:300]}
    if first != {"imported": True}:
        child.stop()
        return {"import_error": "a report not in the harness's form"}
    results = []
    stopped = ""
    for i, want in enumerate(wants):
        report = wait(limit)
        if not isinstance(report, Ended) and report.get("i") != i:
            report = child.stop("forged", "a report not in the harness's form")
        if isinstance(report, Ended):
            if report.kind == "unfinished":
                return {"unfinished": "timed out"}
            stopped = TIMEOUT if report.kind == "late" else report.why
            results.append({"ok": False, "got": "", "error": stopped})
            break
        verdict, expected = judge(report, want, got_chars)
        if not child.send({"expected": expected}, min(time.monotonic() + limit, deadline)):
            stopped = "the process stopped reading the harness's replies"
            results.append({"ok": False, "got": verdict["got"], "error": stopped})
            break
        if expected is not None:
            answer = wait(limit)
            if isinstance(answer, Ended):
                if answer.kind == "unfinished":
                    return {"unfinished": "timed out"}
                stopped = TIMEOUT if answer.kind == "late" else answer.why
                results.append({"ok": False, "got": verdict["got"], "error": stopped})
                break
            if answer.get("i") != i:
                stopped = "a report not in the harness's form"
                results.append({"ok": False, "got": verdict["got"], "error": stopped})
                break
            verdict["ok"] = answer.get("ok") is True
            verdict["error"] = str(answer.get("error", ""))[:300]
        results.append(verdict)
    skipped = f"not run: check {len(results)} ended the run ({stopped})"
    results += [{"ok": False, "got": "", "error": skipped} for _ in wants[len(results) :]]
    return {"results": results}


def main():
    if not PRIVATE:
        raise SystemExit("the check harness runs only with its private channel")
    harden()
    public = read_frame()  # the nonce and the calls, never what they must return
    deadline = time.monotonic() + public["budget_s"]
    limit, got_chars, calls = public["limit"], public["got_chars"], public["calls"]
    child = Child(public["nonce"], lambda link: checks_child(link, calls, limit, got_chars))
    wants = read_frame()  # after the fork: in the parent's memory only
    close_input()
    verdict = run(child, calls, wants, limit, got_chars, deadline)
    child.stop()
    write_verdict(verdict)


main()
'''

_HARNESS = HARNESS_LIB + "\n" + SAME_SOURCE + _HARNESS_BODY
"""The sandboxed check runner: the trusted parent (pid 1 of the sandbox, not dumpable) forks a
child that closes the private channel, imports the solution and runs each check's setup and call
under its time limit, and reports what the call returned (its repr) or raised. The parent alone
knows what each check expects: it reads that from the private channel after the fork, compares a
plain value itself (``ast.literal_eval`` of the repr, then :data:`SAME_SOURCE`'s ``same``), and
writes the verdict on the private channel. Only when the value or the expected expression is not
a literal (a custom object, a subclass, nan; a name the solution defines) does it send the child
the expected expression and take the child's comparison, as the old in-process harness did: there
the solution's own ``__eq__`` decides, as it always has. A child that exits, is killed, hangs
past the limit or writes a report not in the harness's form fails the check it was on and the
checks after it (they are not rerun: a second child forked from the parent would copy the
expected values).

Not defended: a solution written against this harness can, from inside the child, find the nonce
and its report pipe, or patch the harness's functions, and so report any value, or report a
value as not a literal so that the comparison falls back to the child and say it passed. Printing,
exiting, being killed or writing on the fds it can reach no longer passes anything."""


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
    """Gate ``code``, then run ``checks`` against it in one sandboxed run.

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
    budget = min(timeout_s, per_check_s * (len(checks) + 2) + 2)
    public = {
        "nonce": secrets.token_hex(16),
        "limit": per_check_s,
        "got_chars": _GOT_CHARS,
        # The parent stops short of the sandbox's timeout, to write its verdict in time.
        "budget_s": max(budget * 0.9 - 0.3, budget / 2),
        "calls": [{"setup": list(c.setup), "call": c.call} for c in checks],
    }
    wants = [{"expected": c.expected, "raises": c.raises or ""} for c in checks]
    files = {**(project or {}), "solution.py": code}
    result = run_python(
        _HARNESS,
        files=files,
        timeout_s=budget,
        config=config,
        private=private_frames(json.dumps(public), json.dumps(wants)),
        site=False,  # checks_child adds the site-packages directories, without their .pth files
    )
    data = _verdict(result.report)
    if data is None or "unfinished" in data:
        reason = "timed out" if result.timed_out or data else f"exit {result.exit_code}"
        return CandidateRun(gate=f"the checks did not finish ({reason}): {result.stderr[-200:]}")
    if "import_error" in data:
        return CandidateRun(gate=f"import failed: {data['import_error']}")
    results = data.get("results", [])
    verdicts = tuple(Verdict(v["ok"] is True, str(v["got"]), str(v["error"])) for v in results)
    if len(verdicts) != len(checks):
        return CandidateRun(gate="the checks did not finish (a short verdict)")
    return CandidateRun(gate="", verdicts=verdicts)


def _verdict(report: str | None) -> dict[str, Any] | None:
    """The harness's verdict from its private channel; None when it wrote none (or garbage)."""
    try:
        data = json.loads(report or "")
    except ValueError:
        return None
    if not isinstance(data, dict) or not {"results", "import_error", "unfinished"} & data.keys():
        return None
    results = data.get("results", [])
    if not isinstance(results, list) or not all(
        isinstance(v, dict) and {"ok", "got", "error"} <= v.keys() for v in results
    ):
        return None
    return data


__all__ = [
    "CandidateRun",
    "Check",
    "CheckSource",
    "EntryPoint",
    "SandboxUnavailable",
    "Verdict",
    "gate",
    "run_checks",
]
