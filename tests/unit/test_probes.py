"""The probes that tell candidates apart: derived from the checks, never judged."""

from __future__ import annotations

import ast

from agents.probes import MAX_PROBES, observation, probes, raised, variants
from tools.check_runner import Check, run_checks


def test_variants_stay_near_the_value_and_of_its_type() -> None:
    assert variants("abc") == ["cba", "ABC", "a", ""]
    assert variants(5) == [6, 10, 12, 0]
    assert variants(True) == [False] and variants(None) == []
    assert variants([3, 1]) == [[1, 3], [3], [], [3, 1, 3, 1]]  # reversed is also sorted
    assert variants(10**7) == []  # a huge number is not made larger
    assert all(isinstance(v, tuple) for v in variants((1, 2)))


def test_probes_vary_each_argument_cross_the_checks_and_skip_what_is_checked() -> None:
    checks = [
        Check("pad('ab', 4)", "'ab  '", "statement"),
        Check("pad('xyz', 2)", "'xyz'", "writer"),
        Check("pad('a', n=1)", "'a'", "writer"),
        Check("pad(1, None, *rest)", "0", "writer"),  # not literal: skipped
        Check("pad('q', 0)", "None", "writer", raises="ValueError"),  # an error: not varied
    ]
    calls = [p.call for p in probes(checks)]
    assert len(calls) == len(set(calls)) == MAX_PROBES
    assert "pad('ba', 4)" in calls and "pad('xyz', 4)" not in calls[:3]
    assert "pad('ab', 5)" in calls and "pad('a', n=2)" in calls
    assert not {c.call for c in checks} & set(calls)
    assert all(p.source == "probe" and ast.parse(p.call, mode="eval") for p in probes(checks))
    # crossed arguments appear once each check's own variants have had their turn
    assert "pad('ab', 2)" in [p.call for p in probes(checks, limit=100)]


def test_probes_keep_a_class_checks_setup() -> None:
    checks = [Check("s.pop()", "2", "statement", setup=("s = Stack()", "s.push(2)"))]
    assert probes(checks) == []  # no arguments to vary
    checks = [Check("s.push(2)", "None", "statement", setup=("s = Stack()",))]
    assert {p.setup for p in probes(checks)} == {("s = Stack()",)}
    # a check revived from a checkpoint holds its setup as a list
    revived = [Check("s.push(2)", "None", "statement", setup=["s = Stack()"])]  # type: ignore[arg-type]
    assert probes(revived) == probes(checks)


def test_observation_compares_values_without_addresses_and_errors_by_type() -> None:
    assert observation("<solution.Stack object at 0x7f3a2b>", "") == "<solution.Stack object>"
    assert observation("", "ValueError: bad") == observation("", "ValueError: other")
    assert observation("1", "") != observation("", "TypeError: 1")


def test_raised_names_the_exception_of_an_observation_and_nothing_for_a_value() -> None:
    assert raised(observation("", "IndexError: list index out of range")) == "IndexError"
    assert raised(observation("'raised KeyError'", "")) is None
    assert raised("IndexError") is None


def test_probes_run_in_the_sandbox_beside_the_checks() -> None:
    code = "def double(x):\n    return x * 2\n"
    found = probes([Check("double(3)", "6", "statement")])
    run = run_checks(code, found, None, timeout_s=20)
    assert [v.got for v in run.verdicts][:3] == ["8", "12", "20"]
