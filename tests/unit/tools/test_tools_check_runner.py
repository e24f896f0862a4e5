"""tools.check_runner: the gate (a parse and the entry point, no sandbox), then every check run
in one sandboxed run with a verdict each: what the call returned or raised, compared with what
it must return."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.check_runner import CandidateRun, Check, EntryPoint, Verdict, gate, run_checks
from tools.sandbox import SandboxConfig

ADD = EntryPoint("add", "function", ("a", "b"))


def test_the_gate_needs_a_parse_and_the_entry_point() -> None:
    assert gate("def add(a, b):\n    return a + b\n", ADD) == ""
    assert gate("def add(a, b) return", ADD).startswith("syntax error")
    assert "no top-level function add" in gate("def plus(a, b):\n    return a\n", ADD)
    assert "takes ('a',)" in gate("def add(a):\n    return a\n", ADD)


def test_checks_run_in_the_sandbox_one_verdict_each() -> None:
    checks = [
        Check("add(2, 3)", "5", "statement"),
        Check("add(1, 1)", "3", "writer"),
        Check("add('a', 1)", "None", "writer", raises="TypeError"),
    ]
    run = run_checks("def add(a, b):\n    return a + b\n", checks, ADD)
    assert run.gate == "" and run.passed == (True, False, True)
    assert run.verdicts[1].got == "2"
    # a caller that gated the code already passes the gate's answer: no second parse
    assert run_checks("def add(a, b):\n    return a + b\n", checks, ADD, gated="no") == (
        CandidateRun(gate="no")
    )
    again = run_checks("def add(a, b):\n    return a + b\n", checks, ADD, gated="")
    assert again.passed == run.passed


def test_a_check_reads_as_one_line_and_keys_on_what_it_runs() -> None:
    plain = Check("add(1, 2)", "3", "writer")
    assert plain.label() == "add(1, 2) == 3" and plain.key() == ((), "add(1, 2)")
    stateful = Check("s.pop()", "1", "statement", setup=("s = Stack()", "s.push(1)"))
    assert stateful.label() == "s = Stack(); s.push(1); s.pop() == 1"
    raising = Check("add('a', 1)", "None", "writer", raises="TypeError")
    assert raising.label() == "add('a', 1) raises TypeError"
    # the same call whatever it expects; a check revived from a checkpoint holds a list
    revived = Check("s.pop()", "2", "writer", setup=["s = Stack()", "s.push(1)"])  # type: ignore[arg-type]
    assert revived.key() == stateful.key() == (("s = Stack()", "s.push(1)"), "s.pop()")


def test_the_gate_takes_a_class_an_async_def_and_flexible_parameters() -> None:
    stack = EntryPoint("Stack", "class")
    assert gate("class Stack:\n    pass\n", stack) == ""
    assert gate("def Stack():\n    pass\n", stack) == "solution.py defines no top-level class Stack"
    assert gate("async def add(a, b):\n    return a + b\n", ADD) == ""
    assert gate("def add(*numbers):\n    return sum(numbers)\n", ADD) == ""
    assert gate("def add(a, b, c=0):\n    return a + b + c\n", ADD) == ""
    nested = "def outer():\n    def add(a, b):\n        return a + b\n"
    assert gate(nested, ADD) == "solution.py defines no top-level function add"
    # without an entry point only the parse counts
    assert gate("x = 1\n", None) == ""
    assert gate("x = (", None).startswith("syntax error: ")


def test_a_check_that_loops_or_raises_fails_alone_and_the_next_ones_still_run() -> None:
    code = (
        "def add(a, b):\n"
        "    if a < 0:\n"
        "        while True:\n"
        "            pass\n"
        "    if a == 0:\n"
        "        raise ValueError('zero')\n"
        "    return a + b\n"
    )
    checks = [
        Check("add(-1, 1)", "0", "writer"),
        Check("add(0, 1)", "1", "writer"),
        Check("add(1, 1)", "2", "writer"),
        Check("add(0, 2)", "None", "writer", raises="ValueError"),
    ]
    run = run_checks(code, checks, ADD, per_check_s=0.5)
    assert run.gate == "" and run.passed == (False, False, True, True)
    assert run.verdicts[0].error == "TimeoutError: the call ran past its time limit"
    assert run.verdicts[1] == Verdict(False, "", "ValueError: zero")
    assert run.verdicts[2].got == "2" and run.verdicts[3].got == "raised ValueError"


def test_values_compare_as_the_checks_mean_them() -> None:
    code = (
        "def f(x):\n    return x\n\n\n"
        "class P:\n"
        "    def __init__(self, v):\n        self.v = v\n\n"
        "    def __eq__(self, other):\n        return isinstance(other, P) and other.v == self.v\n"
    )
    checks = [
        Check("f(0.1 + 0.2)", "0.3", "writer"),  # floats within a tolerance
        Check("f(1)", "1.0", "writer"),  # an int equals its float
        Check("f(True)", "1", "writer"),  # True is not 1
        Check("f(1)", "True", "writer"),  # nor 1 True
        Check("P(2)", "P(2)", "writer"),  # no literal: the solution's own __eq__ decides
        Check("P(2)", "P(3)", "writer"),
    ]
    run = run_checks(code, checks, None)
    assert run.passed == (True, True, False, False, True, False)


def test_an_import_that_fails_is_the_runs_gate_and_no_checks_run_nothing() -> None:
    code = "raise RuntimeError('boom')\n\n\ndef add(a, b):\n    return a + b\n"
    run = run_checks(code, [Check("add(1, 1)", "2", "writer")], ADD)
    assert run == CandidateRun(gate="import failed: RuntimeError: boom")
    assert run_checks("def add(a, b):\n    return a + b\n", [], ADD) == CandidateRun(gate="")


def test_an_expected_exception_is_met_by_itself_or_a_builtin_subclass_as_except_reads_it() -> None:
    code = "def add(a, b):\n    return {}[a] if a == 'k' else a + b\n"
    checks = [
        Check("add('a', 1)", "None", "writer", raises="TypeError"),
        Check("add('a', 1)", "None", "writer", raises="Exception"),  # any error is one
        Check("add('k', 1)", "None", "writer", raises="LookupError"),  # KeyError is one
        Check("add('a', 1)", "None", "writer", raises="ValueError"),  # TypeError is not
        Check("add('k', 1)", "None", "writer", raises="IndexError"),  # nor is KeyError
        Check("add(1, 1)", "None", "writer", raises="Exception"),  # returned 2
    ]
    run = run_checks(code, checks, ADD)
    assert run.passed == (True, True, True, False, False, False)
    assert run.verdicts[4].got == "raised KeyError"


def test_the_solution_sees_site_packages_and_the_projects_paths_without_site_run() -> None:
    # The harness starts with -S (no .pth file runs: one imports certifi on these machines);
    # the solution still finds the interpreter's site-packages, after the stdlib, and the
    # project's packages (SandboxConfig.extra_python_paths, on PYTHONPATH).
    packages = Path(pytest.__file__).resolve().parent.parent
    code = (
        "import sys\n\n\n"
        "def where():\n"
        "    import pytest  # from the bound site-packages\n"
        "    stdlib = next(i for i, p in enumerate(sys.path) if p.endswith('lib-dynload'))\n"
        "    ends = ('site-packages', 'dist-packages')\n"
        "    site = [i for i, p in enumerate(sys.path) if p.endswith(ends)]\n"
        "    return sys.flags.no_site, bool(site) and site[-1] > stdlib, pytest.__name__\n"
    )
    config = SandboxConfig(extra_python_paths=(packages,))
    run = run_checks(code, [Check("where()", "(1, True, 'pytest')", "writer")], None, config=config)
    assert run.passed == (True,), run
    # the builtins site adds are there too, as where the hidden tests grade the solution:
    # exit() exits (a failed check), it is not a NameError
    run = run_checks("def stop():\n    exit(3)\n", [Check("stop()", "None", "writer")], None)
    assert run.verdicts[0].error == "SystemExit: 3", run
