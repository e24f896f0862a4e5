"""The candidates' own asserts: read out of their code, run against every candidate, ranked."""

from __future__ import annotations

from agents.examples import statement_checks
from agents.peer_tests import peer_checks
from agents.selection import peer_scores, rank
from tools.check_runner import CandidateRun, Check, EntryPoint, Verdict, run_checks

ENTRY = EntryPoint("reverse_words", "function", ("sentence",))

# reverse_words, as seen in eval 815a746: all four passed the three checks the statement gave
# ("an empty or blank string returns ''"), did the same on every probe, and the greedy one
# (wrong: it reverses the characters) was chosen over the one sample that was right.
GREEDY = """def reverse_words(sentence):
    return " ".join(sentence.split())[::-1]

def check_solution():
    assert reverse_words("Hello world") == "dlrow olleH", "Test case 1 failed"
    assert reverse_words("") == "", "Test case 3 failed"
"""
SYSTEM = """def reverse_words(sentence):
    return " ".join(sentence.strip().split())
"""
RIGHT = """def reverse_words(sentence):
    return " ".join(reversed(sentence.split()))

def check_solution():
    assert reverse_words("This is a test") == "test a is This"
    assert reverse_words("") == ""
    assert reverse_words("No words here") == "here No"
"""
STUB = """def reverse_words(sentence):
    return " ".join(word[::-1] for word in sentence.split())

def check_solution():
    assert reverse_words("multiple   spaces") == "spaces multiple"
    assert reverse_words(sentence) == ""
    assert reverse_words("a", sep=" ") == "a"
    assert len(reverse_words("a b")) == 3
"""


def test_asserts_on_the_entry_point_are_read_in_turn_and_once() -> None:
    pool = peer_checks([GREEDY, SYSTEM, RIGHT, STUB], ENTRY)
    assert [(c.call, c.expected) for c in pool] == [
        ("reverse_words('Hello world')", "'dlrow olleH'"),
        ("reverse_words('This is a test')", "'test a is This'"),
        ("reverse_words('multiple   spaces')", "'spaces multiple'"),
        ("reverse_words('')", "''"),  # the greedy one's; the right one's same call is not kept
        ("reverse_words('No words here')", "'here No'"),
    ]  # not a variable argument, a keyword, a computed left side
    assert {c.source for c in pool} == {"peer"}
    assert len(peer_checks([GREEDY, RIGHT, STUB], ENTRY, limit=2)) == 2
    # a class's asserts need its state; code that does not parse has none
    assert peer_checks([GREEDY], EntryPoint("Stack", "class")) == []
    assert peer_checks(["def reverse_words(:", GREEDY], None) == []
    assert len(peer_checks(["def reverse_words(:", GREEDY], ENTRY)) == 2


def test_the_candidates_asserts_break_the_tie_the_checks_and_probes_leave() -> None:
    codes = [GREEDY, SYSTEM, RIGHT, STUB]
    checks = statement_checks(
        'Write a Python function `reverse_words(sentence)` ... An empty string returns "".',
        ENTRY,
    ) or [Check("reverse_words('')", "''", "statement")]
    runs = [run_checks(code, checks, ENTRY) for code in codes]
    assert all(not run.gate and all(run.passed) for run in runs)
    greedy = [True, True, False, False]
    voters = [("greedy", 0), ("greedy", 0), 2, 3]
    assert rank(checks, runs, greedy, voters=voters)[0].index == 0  # without them: greedy
    pool = peer_checks(codes, ENTRY)
    peers = [[v.ok for v in run_checks(code, pool, ENTRY).verdicts] for code in codes]
    # the right one fails the greedy one's wrong guess and its own ("here No")
    assert peers[2] == [False, True, True, True, False]
    best = rank(checks, runs, greedy, voters=voters, peers=peers)[0]
    assert best.index == 2 and best.peer == round(peer_scores(runs, peers)[2], 6)


def test_an_assert_weighs_the_share_of_candidates_passing_it() -> None:
    ok = CandidateRun("", (Verdict(True, "1"),))
    peers = [[True, False], [True, True], [True, False], []]
    runs = [ok, ok, ok, ok]
    # the last ran none (its run failed): the shares are over the three that did
    assert peer_scores(runs, peers) == [1.0, 1.0 + 1 / 3, 1.0, 0.0]
    # a gated-out candidate neither scores nor counts in the shares
    gated = [CandidateRun("syntax error"), ok, ok, ok]
    assert peer_scores(gated, [[True, True], [False, True], [False, False], []]) == [
        0.0,
        0.5,
        0.0,
        0.0,
    ]
    assert peer_scores(runs, []) == [0.0] * 4  # none written: no tie-break
