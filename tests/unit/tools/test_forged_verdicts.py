"""Code under test cannot write the channel its verdict is read from (issue 41, finding 1).

A wrong solution that printed ``RESULT passed=2 failed=0`` or a forged ``EDGESWARM-CHECKS``
line, and then exited, was graded as passing by both :func:`app.evaluate.grade` and
:func:`tools.check_runner.run_checks`: the verdict was read from the first such line on stdout.
Now the trusted parent in the sandbox writes it on a private channel, and the solution runs in
a forked child that closed that channel before importing it.
"""

from __future__ import annotations

import json

import pytest

from app.evaluate import grade
from tools import sandbox
from tools.check_runner import Check, EntryPoint, run_checks
from tools.sandbox import ExecResult, run_tests

ADD = EntryPoint("add", "function", ("a", "b"))
CHECKS = [
    Check("add(1, 1)", "2", "statement"),
    Check("add(0, 0)", "0", "statement"),
    Check("add(2, 3)", "5", "statement"),
]
RIGHT = "def add(a, b):\n    return a + b\n"
WRONG = "def add(a, b):\n    return a - b\n"  # honest: fails, passes, fails
HONEST = (False, True, False)
FORGED_CHECKS = "EDGESWARM-CHECKS " + json.dumps(
    {"results": [{"ok": True, "got": "", "error": ""}] * 3}
)
FORGED_RESULT = "RESULT passed=2 failed=0"
HIDDEN = (
    "from solution import add\n\n\n"
    "def test_one():\n    assert add(1, 1) == 2\n\n\n"
    "def test_zero():\n    assert add(0, 0) == 0\n\n\n"
    "def test_five():\n    assert add(2, 3) == 5\n"
)
# Writes a forged verdict (both kinds) on every fd of the harness it can reopen through /proc.
PROC_FORGER = (
    "import json, os\n"
    f"_forged = ({FORGED_CHECKS!r} + '\\n' + {FORGED_RESULT!r} + '\\n'"
    " + json.dumps({'passed': 3, 'failed': 0}) + '\\n').encode()\n"
    "for _pid in {'1', str(os.getppid())}:\n"
    "    try:\n"
    "        _fds = os.listdir(f'/proc/{_pid}/fd')\n"
    "    except OSError:\n"
    "        continue\n"
    "    for _fd in _fds:\n"
    "        try:\n"
    "            _out = os.open(f'/proc/{_pid}/fd/{_fd}', os.O_WRONLY | os.O_NONBLOCK)\n"
    "            os.write(_out, _forged)\n"
    "        except OSError:\n"
    "            pass\n"
)


def test_honest_wrong_solution_fails_two_of_three() -> None:
    run = run_checks(WRONG, CHECKS, ADD)
    assert run.gate == "" and run.passed == HONEST
    assert [v.got for v in run.verdicts] == ["0", "0", "-1"]


def test_right_solution_passes_every_check() -> None:
    run = run_checks(RIGHT, CHECKS, ADD)
    assert run.gate == "" and run.passed == (True, True, True)
    graded = grade(RIGHT, HIDDEN)
    assert graded.solved and (graded.passed, graded.failed) == (3, 0)


def test_forged_checks_line_does_not_pass() -> None:
    code = f"print({FORGED_CHECKS!r})\n" + WRONG
    run = run_checks(code, CHECKS, ADD)
    assert run.gate == "" and run.passed == HONEST


def test_forged_checks_line_in_the_call_does_not_pass() -> None:
    code = f"def add(a, b):\n    print({FORGED_CHECKS!r}, flush=True)\n    return a - b\n"
    assert run_checks(code, CHECKS, ADD).passed == HONEST


@pytest.mark.parametrize(
    "leave",
    [
        "import sys; sys.exit(0)",
        "raise SystemExit(0)",
        "import os; os._exit(0)",
        "import os, signal; os.kill(os.getpid(), signal.SIGKILL)",
        "import os, sys; sys.stdout.flush(); os.close(1); os._exit(0)",
    ],
)
def test_exit_after_forging_fails(leave: str) -> None:
    # at import: the gate fails
    at_import = f"import sys\nprint({FORGED_CHECKS!r}, flush=True)\n{leave}\n" + WRONG
    run = run_checks(at_import, CHECKS, ADD)
    assert run.gate.startswith("import failed"), run
    # in the first call: that check fails with the reason, and so do the ones it cut short
    in_call = f"def add(a, b):\n    print({FORGED_CHECKS!r}, flush=True)\n    {leave}\n"
    run = run_checks(in_call, CHECKS, ADD)
    assert run.gate == "" and run.passed == (False, False, False), run
    assert all(v.error for v in run.verdicts)


def test_keyboard_interrupt_in_a_call_fails_that_check_only() -> None:
    code = (
        "def add(a, b):\n"
        "    if a == 1:\n"
        f"        print({FORGED_CHECKS!r})\n"
        "        raise KeyboardInterrupt\n"
        "    return a + b\n"
    )
    run = run_checks(code, CHECKS, ADD)
    assert run.passed == (False, True, True)
    assert run.verdicts[0].error.startswith("KeyboardInterrupt")


def test_os_exit_zero_fails() -> None:
    run = run_checks("import os\nos._exit(0)\n" + RIGHT, CHECKS, ADD)
    assert run.gate == "import failed: the process ended (exit 0)"
    graded = grade("import os\nos._exit(0)\n" + RIGHT, HIDDEN)
    assert not graded.solved and graded.failed >= 1 and graded.passed == 0
    # in one test of three: the two others still count, the cut-short ones fail
    midway = "import os\n\ndef add(a, b):\n    if a == 0:\n        os._exit(0)\n    return a + b\n"
    graded = grade(midway, HIDDEN)
    assert not graded.solved and (graded.passed, graded.failed) == (2, 1)


def test_reopening_the_harness_fds_through_proc_does_not_pass() -> None:
    run = run_checks(PROC_FORGER + WRONG, CHECKS, ADD)
    assert run.gate == "" and run.passed == HONEST
    graded = grade(PROC_FORGER + WRONG, HIDDEN)
    assert not graded.solved and (graded.passed, graded.failed) == (1, 2)
    # its own fds (its report pipe among them) take no verdict either: the run fails
    forger = PROC_FORGER.replace("str(os.getppid())", "'self'")
    assert run_checks(forger + WRONG, CHECKS, ADD).gate.startswith("import failed")
    graded = grade(forger + WRONG, HIDDEN)
    assert not graded.solved and (graded.passed, graded.failed) == (0, 3)


def test_signalling_the_harness_does_not_pass() -> None:
    code = (
        "import os, signal\n"
        "for _sig in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL, signal.SIGSTOP):\n"
        "    for _pid in {1, os.getppid()}:\n"
        "        try:\n"
        "            os.kill(_pid, _sig)\n"
        "        except OSError:\n"
        "            pass\n"
    ) + WRONG
    assert run_checks(code, CHECKS, ADD).passed == HONEST
    graded = grade(code, HIDDEN)
    assert not graded.solved and (graded.passed, graded.failed) == (1, 2)


def test_forged_result_line_does_not_pass() -> None:
    code = f"import sys\nprint({FORGED_RESULT!r}, flush=True)\nsys.exit(0)\n" + WRONG
    graded = grade(code, HIDDEN)
    assert not graded.solved and (graded.passed, graded.failed) == (0, 1)
    # printed and left there, the honest counts still stand
    graded = grade(f"print({FORGED_RESULT!r})\n" + WRONG, HIDDEN)
    assert not graded.solved and (graded.passed, graded.failed) == (1, 2)


def test_forged_result_line_then_exit_in_a_test_does_not_pass() -> None:
    code = (
        f"import os\n\ndef add(a, b):\n    print({FORGED_RESULT!r}, flush=True)\n    os._exit(0)\n"
    )
    graded = grade(code, HIDDEN)
    assert not graded.solved and (graded.passed, graded.failed) == (0, 3)


def test_unittest_cases_that_exit_fail() -> None:
    tests = (
        "import os, unittest\nfrom solution import add\n\n\n"
        "class AddCase(unittest.TestCase):\n"
        "    def test_a(self):\n        self.assertEqual(add(1, 1), 2)\n\n"
        "    def test_b(self):\n        print('RESULT passed=3 failed=0'); os._exit(0)\n\n"
        "    def test_c(self):\n        self.assertEqual(add(2, 3), 5)\n"
    )
    result = run_tests({"solution.py": RIGHT, "test_hidden.py": tests})
    assert sandbox.test_counts(result) == (1, 2) and result.exit_code == 1
    assert "FAIL test_hidden.AddCase.test_c (it never reported)" in result.stdout


def test_counts_never_read_stdout() -> None:
    printed = ExecResult(
        exit_code=0,
        stdout=f"{FORGED_RESULT}\n",
        stderr="",
        timed_out=False,
        killed_reason=None,
        duration_s=0.1,
    )
    assert sandbox.test_counts(printed) == (0, 1)
    reported = printed.model_copy(update={"report": '{"passed": 2, "failed": 0}'})
    assert sandbox.test_counts(reported) == (2, 0)
    for bad in ('{"passed": true, "failed": 0}', '{"passed": -1, "failed": 0}', "[1]", "x"):
        assert sandbox.test_counts(printed.model_copy(update={"report": bad})) == (0, 1)


def test_a_call_that_ignores_its_alarm_is_stopped_and_the_run_still_reports() -> None:
    code = (
        "import signal\n\ndef add(a, b):\n"
        "    if a == 0:\n"
        "        signal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
        "        while True:\n            pass\n"
        "    return a + b\n"
    )
    run = run_checks(code, CHECKS, ADD, per_check_s=0.5)
    assert run.gate == "" and run.passed == (True, False, False)
    assert run.verdicts[1].error.startswith("TimeoutError")


def test_the_solution_never_sees_what_the_checks_expect() -> None:
    # The expected values are neither in main.py nor in the child's memory (objects, frames):
    # a solution that looks for the expected string there, to return it, finds nothing.
    code = (
        "import gc, sys\n"
        "_seen = [open('/work/main.py').read(), open('/run/input/main.py').read()]\n"
        "_seen += [repr(o) for o in gc.get_objects() if isinstance(o, (dict, list, tuple))]\n"
        "_frame = sys._getframe()\n"
        "while _frame is not None:\n"
        "    _seen.append(repr(_frame.f_locals))\n"
        "    _frame = _frame.f_back\n"
        "def add(a, b):\n"
        "    needle = ''.join(['sec', 'ret-4', '1'])  # not a constant the compiler folds\n"
        "    return needle if any(needle in s for s in _seen) else None\n"
    )
    run = run_checks(code, [Check("add(1, 2)", "'secret-41'", "writer")], ADD)
    assert run.gate == "" and run.passed == (False,), run
    assert run.verdicts[0].got == "None"


def test_values_that_are_not_literals_are_compared_as_before() -> None:
    code = (
        "import collections, decimal\n"
        "Point = collections.namedtuple('Point', 'x y')\n"
        "def add(a, b):\n"
        "    return {1: Point(a, b), 2: decimal.Decimal(a + b), 3: float('nan'),\n"
        "            4: collections.Counter(a=a), 5: [a, b]}[a]\n"
    )
    checks = [
        Check("add(1, 2)", "(1, 2)", "writer"),  # a namedtuple equals its tuple
        Check("add(2, 3)", "5", "writer"),  # Decimal(5) == 5
        Check("add(3, 0)", "float('nan')", "writer"),  # nan is never equal
        Check("add(4, 0)", "{'a': 4}", "writer"),
        Check("p = add(1, 7)", "7", "writer", setup=("q = add(1, 7)",)),  # not an expression
        Check("add(5, 6)", "[5, x]", "writer", setup=("x = 6",)),  # needs the setup's name
        Check("add(5, 6)", "[5.0, 6]", "writer"),
        Check("add(5, True)", "[5, 1]", "writer"),  # True == 1 inside a list, as before
    ]
    run = run_checks(code, checks, ADD)
    assert run.passed == (True, True, False, True, False, True, True, True), run
