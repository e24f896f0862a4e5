"""tools.evidence: what the auditors decide on, bandit's static report of the code and its
passed checks' calls run again on large inputs under a time limit."""

from __future__ import annotations

from tools.check_runner import Check, EntryPoint
from tools.evidence import bandit_scan, large_call, performance_probe


def test_evidence_from_bandit_and_large_inputs() -> None:
    found = bandit_scan("def add(a, b):\n    return eval(str(a) + '+' + str(b))\n")
    assert any(e.blocking and "B307" in e.text for e in found)
    assert bandit_scan("def add(a, b):\n    return a + b\n") == []
    assert large_call("f('ab', [1, 2], 3)") == "f('ab' * 1500, [1, 2] * 1500, 3)"
    assert large_call("f(3)") is None


def test_bandit_blocks_on_high_severity_or_medium_with_high_confidence() -> None:
    shell = bandit_scan(
        "import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd, shell=True)\n"
    )
    assert [(e.tool, e.text.split(", line")[0], e.blocking) for e in shell] == [
        ("bandit", "B404 low severity, high confidence", False),
        ("bandit", "B602 high severity, high confidence", True),
    ]
    assert shell[1].text.startswith("B602 high severity, high confidence, line 5: ")
    query = 'def q(cur, x):\n    return cur.execute("SELECT * FROM t WHERE id = " + x)\n'
    [sql] = bandit_scan(query)
    assert sql.text.startswith("B608 medium severity, medium confidence") and not sql.blocking
    many = "".join(f"def f{i}(x):\n    assert x\n" for i in range(9))
    assert len(bandit_scan(many)) == 6  # at most six issues are told


def test_large_calls_grow_only_literal_strings_and_lists() -> None:
    assert large_call("f([1, 2, 3], 'abc', n=3)") == "f([1, 2, 3] * 1000, 'abc' * 1000, n=3)"
    assert large_call("f('x' * 5000)") is None  # not a literal: left as it is
    assert large_call("f('', [])") is None  # nothing to repeat
    assert large_call("x + 1") is None and large_call("f(") is None


def test_the_performance_probe_times_only_the_passed_checks_calls_grown() -> None:
    code = (
        "def f(s):\n"
        "    if len(s) > 1000 and s[0] == 'l':\n"
        "        while True:\n"
        "            pass\n"
        "    if len(s) > 1000 and s[0] == 'x':\n"
        "        raise ValueError('too long')\n"
        "    return len(s)\n"
    )
    entry = EntryPoint("f", "function", ("s",))
    checks = [
        Check("f('ab')", "2", "writer"),
        Check("f('xy')", "2", "writer"),
        Check("f('lo')", "2", "writer"),
        Check("f('zz')", "2", "writer"),  # failed: not probed
        Check("f(s)", "2", "statement", setup=("s = 'ab'",)),  # a setup: not probed
        Check("f(3)", "0", "writer"),  # nothing grows
        Check("f('ab')", "2", "statement"),  # the same large call once
    ]
    passed = [True, True, True, False, True, True, True]
    found = performance_probe(code, checks, passed, entry)
    assert [(e.tool, e.text, e.blocking) for e in found] == [
        ("performance probe", "f('ab' * 1500) finished in time", False),
        ("performance probe", "f('xy' * 1500) raised ValueError: too long on a large input", False),
        ("performance probe", "f('lo' * 1500) did not finish within 2 s", True),
    ]
    assert performance_probe(code, checks[3:6], [False, True, True], entry) == []
