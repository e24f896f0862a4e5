"""A run's checks become a test module: one test per check, clear failures."""

from agents.checks import checks_module
from tools.check_runner import Check
from tools.sandbox import ExecResult, run_tests

SOLUTION = (
    "def c2f(c):\n    return c * 9 / 5 + 32\n\n"
    "def counts(text):\n    out = {}\n    for w in text.split():\n"
    "        out[w] = out.get(w, 0) + 1\n    return out\n"
)


def run(*cases: tuple[str, str]) -> ExecResult:
    module = checks_module([Check(c, e, "writer") for c, e in cases])
    return run_tests({"solution.py": SOLUTION, "test_solution.py": module})


def test_each_check_is_its_own_test_and_floats_use_a_tolerance() -> None:
    result = run(("c2f(37)", "98.6"), ("c2f(100)", "212"), ("c2f(0)", "33"))
    assert "RESULT passed=2 failed=1" in result.stdout
    assert "c2f(0) returned 32.0, expected 33" in result.stderr


def test_braces_and_quotes_in_checks_are_literal() -> None:
    result = run(("counts('a b a')", "{'a': 2, 'b': 1}"), ('counts("x")', "{'x': 2}"))
    assert "RESULT passed=1 failed=1" in result.stdout
    assert """counts("x") returned {'x': 1}, expected {'x': 2}""" in result.stderr


def test_invalid_check_fails_with_a_reason_and_others_still_run() -> None:
    result = run(("c2f(", "1"), ("c2f(100)", "212"))
    assert "RESULT passed=1 failed=1" in result.stdout
    assert "check 1 is not valid Python" in result.stderr


def test_setup_lines_and_expected_exceptions_become_tests() -> None:
    module = checks_module(
        [
            Check("out['a']", "2", "statement", setup=("out = counts('a a')",)),
            Check("c2f('x')", "None", "statement", raises="TypeError"),
            Check("c2f(1)", "None", "statement", raises="ValueError"),
            Check("c2f(True)", "33.8", "writer"),
            Check("counts('') == {}", "1", "writer"),  # True is not 1
        ]
    )
    result = run_tests({"solution.py": SOLUTION, "test_solution.py": module})
    assert "RESULT passed=3 failed=2" in result.stdout
    assert "c2f(1) raises ValueError" in result.stderr
