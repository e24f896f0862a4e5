"""agents.selection: which candidate a round keeps, by the trusted checks, agreement on the
checks' and probes' calls, support of the writer's checks, crashes, constant answers and the
project's own helpers; and which failures are feedback for a revision.

The statement's examples are tested in test_examples.py, the gate and the check runner in
tools/test_tools_check_runner.py, the auditors' evidence in tools/test_tools_evidence.py.
"""

from __future__ import annotations

from agents.selection import (
    agreement,
    backed,
    constant,
    crashes,
    never_returned,
    project_calls,
    rank,
    required,
    supported_failures,
)
from tools.check_runner import CandidateRun, Check, Verdict


def _run(*oks: bool) -> CandidateRun:
    return CandidateRun("", tuple(Verdict(ok) for ok in oks))


def test_selection_trusts_the_statement_weighs_by_agreement_and_keeps_the_best() -> None:
    checks = [Check("f(1)", "1", "statement"), Check("f(2)", "2", "writer")]
    runs = [_run(False, True), _run(True, False), _run(True, False)]
    assert [s.index for s in rank(checks, runs, [True, False, False])] == [1, 2, 0]
    # a tie keeps the earlier candidate: a later revision must pass more to replace it
    assert rank(checks, [_run(True, True), _run(True, True)], [False, False])[0].index == 0
    # a blocked candidate ranks last whatever it passes
    assert rank(checks, [_run(True, True), _run(True, False)], [True, False], {0})[0].index == 1
    # a writer check every candidate fails is neither required nor feedback
    alone = [_run(True, False)]
    assert required(checks, alone) == [0] and supported_failures(0, checks, alone) == []
    assert supported_failures(1, checks, runs) == [1]


def test_a_tie_goes_to_what_most_candidates_return_not_to_the_greedy_one() -> None:
    # reverse_words, as seen: the writer's expected values were wrong, so every candidate
    # failed the same checks; three returned the same (right) words, the greedy one others
    checks = [Check("r('a b')", "'a b'", "writer"), Check("r('')", "''", "writer")]

    def returns(first: str) -> CandidateRun:
        return CandidateRun("", (Verdict(False, first), Verdict(True, "''")))

    runs = [returns("'a b'x"), returns("'b a'"), returns("'b a'"), returns("'b a'")]
    best = rank(checks, runs, [True, False, False, False])[0]
    # with 2 others on both calls and with the greedy one on the second
    assert best.index == 1 and best.agreement == 5
    # an error counts by its type, not its message
    raised = [
        CandidateRun("", (Verdict(False, "", "TypeError: x"), Verdict(True, "''"))),
        CandidateRun("", (Verdict(False, "", "TypeError: y"), Verdict(True, "''"))),
    ]
    assert rank(checks, [returns("1"), *raised], [True, False, False])[0].index == 1


def test_a_writer_check_most_candidates_fail_does_not_outrank_what_they_agree_on() -> None:
    # word_count, as seen: the writer expected punctuation stripped ("Hello world!" ->
    # {'hello': 1, 'world': 1}) against the statement; three candidates kept it and agreed
    # on every probe, one stripped it and passed; the check weighed 1/4 and chose that one
    checks = [Check("word_count('Hello world!')", "{'hello': 1, 'world': 1}", "writer")]
    kept = CandidateRun("", (Verdict(False, "{'hello': 1, 'world!': 1}"),))
    stripped = CandidateRun("", (Verdict(True, "Counter({'hello': 1, 'world': 1})"),))
    same = ["{'olleh': 1}", "{}"]
    observed = [same, same, ["Counter({'olleh': 1})", "Counter()"], same]
    ranked = rank(checks, [kept, kept, stripped, kept], [True, True, False, False], (), observed)
    assert ranked[0].index == 0 and ranked[-1].index == 2
    assert [s.score for s in ranked] == [0.0] * 4 and required(checks, [kept, stripped]) == []
    # once most candidates pass it, it counts
    assert rank(checks, [kept, stripped, stripped], [True, False, False])[0].index == 1


def test_a_writer_check_two_independent_samples_pass_breaks_a_tie_left_by_agreement() -> None:
    # bank_account, as seen: "deposit ... returns the new balance"; the first round's four
    # candidates (the greedy pair among them) returned None, two of three fresh samples
    # returned the balance and passed the writer's check; 2 of 7 is not required
    checks = [Check("BankAccount(2).deposit(3)", "5", "writer")]
    none = CandidateRun("", (Verdict(False, "None"),))
    five = CandidateRun("", (Verdict(True, "5"),))
    runs = [none, none, none, none, five, five, none]
    voters = [("greedy", 0), ("greedy", 0), 2, 3, 4, 5, 6]
    assert required(checks, runs) == [] and backed(checks, runs, voters) == [0]
    # the two that pass it behave alike elsewhere too: where agreement ties, the check decides
    pair = [none, five, five, none]
    best = rank(checks, pair, [True, False, False, False], voters=[0, 1, 2, 3])
    assert [s.agreement for s in best] == [1.0] * 4 and [s.score for s in best] == [0.0] * 4
    assert best[0].index == 1 and best[0].backed == 0.5
    # one sample alone (word_count's lucky wrong one) backs nothing: the greedy answer stays
    alone = [none, none, none, five]
    assert backed(checks, alone) == [] and rank(checks, alone, [True] * 4)[0].index == 0
    # nor do the two greedy answers of one round, which are one voter
    both = [five, five, none, none]
    assert backed(checks, both, [("greedy", 0), ("greedy", 0), 2, 3]) == []
    assert backed(checks, both) == [0]  # each its own voter
    # a statement example is required anyway, never merely backed
    stated = [Check("BankAccount(2).deposit(3)", "5", "statement")]
    assert backed(stated, runs, voters) == []
    # the None answers: with a second check expecting another value, and the probes, they
    # return one value everywhere and rank last of their score (constant), so the balance wins
    two = [*checks, Check("BankAccount(0).withdraw(1)", "0", "writer")]
    none2 = CandidateRun("", (Verdict(False, "None"), Verdict(False, "None")))
    five2 = CandidateRun("", (Verdict(True, "5"), Verdict(False, "-1")))
    seen = [["None"] * 3] * 4 + [["5", "7", "-3"]] * 2 + [["None"] * 3]
    runs2 = [none2] * 4 + [five2] * 2 + [none2]
    greedy = [True, True, False, False, False, False, False]
    assert rank(two, runs2, greedy, (), seen, voters)[0].index == 4


def test_two_samples_agreeing_on_every_call_outrank_two_that_share_one_writer_call() -> None:
    # final_exam_grade, as seen (project set, three runs): the writer expected 0.0 for 0
    # points; two wrong candidates returned it and differed everywhere else, two right ones
    # (1.0 for 0 points) returned the same on every call and passed no writer check
    checks = [Check("g(56)", "56.0", "writer"), Check("g(0)", "0.0", "writer")]
    right = CandidateRun("", (Verdict(False, "4.5"), Verdict(False, "1.0")))
    wrong_a = CandidateRun("", (Verdict(False, "3.05"), Verdict(True, "0.0")))
    wrong_b = CandidateRun("", (Verdict(False, "4.0"), Verdict(True, "0.0")))
    other = CandidateRun("", (Verdict(False, "9.0"), Verdict(False, "1.5")))
    runs = [right, wrong_a, other, right, wrong_b]
    seen = [["6.0", "4.0", "1.0"], ["3.1", "1.7", "0.1"], ["0.4", "0.3", "0.1"]]
    seen += [["6.0", "4.0", "1.0"], ["4.0", "4.0", "0.0"]]
    voters = [("greedy", 0), ("greedy", 0), 2, ("greedy", 1), 4]
    greedy = [True, True, False, True, False]
    assert backed(checks, runs, voters) == [1]
    ranked = rank(checks, runs, greedy, (), seen, voters)
    assert ranked[0].index == 0 and ranked[0].backed == 0
    assert {s.index: s.backed for s in ranked}[4] > 0


def test_a_tie_left_by_agreement_goes_to_the_candidate_that_crashes_less() -> None:
    # transpose, as seen: both pass the same checks and agree with nobody on the probes; the
    # greedy one indexes past a non-square matrix's rows on every varied input
    checks = [Check("transpose([[1, 2], [3, 4]])", "[[1, 3], [2, 4]]", "writer")]
    runs = [CandidateRun("", (Verdict(True, "[[1, 3], [2, 4]]"),))] * 2
    observed = [["raised IndexError"] * 3, ["[[1], [2]]", "raised ValueError", "[]"]]
    assert crashes(observed[0]) == 3 and crashes(observed[1]) == 0
    assert rank(checks, runs, [True, False], (), observed)[0].index == 1
    assert rank(checks, runs, [True, False])[0].index == 0  # no probes: the greedy one


def test_candidates_that_raise_on_every_call_do_not_outvote_the_one_that_returns() -> None:
    # receipt_line, as seen (project set): the writer's checks were wrong, so every candidate
    # failed them; three raised TypeError on every call (not a crash: a refusal may be meant)
    # and agreed with each other on all of them, and the one right candidate agreed with
    # nobody: it lost on agreement
    checks = [Check("receipt_line('tea', 1250)", "'tea 12,50'", "writer")] * 2
    typed = CandidateRun("", (Verdict(False, "", "TypeError: x"),) * 2)
    right = CandidateRun("", (Verdict(False, "'tea     12,50'"),) * 2)
    observed = [["raised TypeError"] * 4, ["'a 0,01'", "'b 1,00'", "''", "'c 2,00'"]]
    runs, greedy = [typed, right, typed, typed], [True, False, False, False]
    seen = [observed[0], observed[1], observed[0], observed[0]]
    assert never_returned(typed, observed[0]) and not never_returned(right, observed[1])
    assert rank(checks, runs, greedy, (), seen)[0].index == 1
    # without the rule they win on agreement (the right one agrees with nobody)
    assert agreement(runs, seen)[0] > agreement(runs, seen)[1]
    # a candidate that passes a check returned something, whatever its probes did
    assert not never_returned(CandidateRun("", (Verdict(True, "1"),)), ["raised TypeError"])


def test_a_constant_answer_does_not_win_by_agreeing_with_the_common_value() -> None:
    # is_cancelled, as seen: most orders are not cancelled, so `return False` agreed with
    # every candidate on most probes; two such candidates outvoted the two right ones
    checks = [
        Check("is_cancelled('shop.db', 1001)", "True", "writer"),
        Check("is_cancelled('shop.db', 1002)", "False", "writer"),
    ]
    always = CandidateRun("", (Verdict(False, "False"), Verdict(True, "False")))
    right = CandidateRun("", (Verdict(False, "False"), Verdict(True, "False")))
    flat = ["False"] * 6
    varied = ["False", "True", "False", "False", "False", "False"]
    assert constant(always, checks, flat) and not constant(right, checks, varied)
    runs = [always, always, right, right]
    greedy = [True, False, False, False]
    observed = [flat, flat, varied, ["False", "True", "False", "False", "False", "True"]]
    assert rank(checks, runs, greedy, (), observed)[0].index == 2
    # one expected value, or a single call: a constant answer may well be right
    assert not constant(always, checks[:1], flat)
    assert not constant(always, checks, ["False"])
    # a constant that raises is never_returned's business, not this rule's
    assert not constant(always, checks, ["raised ValueError"] * 3)
    # raising on some calls does not make it vary (seen in a later run: it still won)
    assert constant(always, checks, ["False", "raised TypeError", "False"])
    assert not constant(always, checks, ["False", "raised TypeError"])  # one value returned


def test_a_tie_left_by_everything_else_goes_to_the_candidate_using_the_projects_helpers() -> None:
    # overtime_label, as seen: every writer check was wrong, no two candidates agreed, and the
    # greedy one formatted the minutes itself; the one calling the project's
    # fmt_signed_duration, as the statement asks, was right
    helpers = {"fmt_signed_duration", "WEEK_HOURS", "parse_hours"}
    mine = "def overtime_label(m):\n    return f'{m}h'\n"
    theirs = (
        "from payroll.fmt import fmt_signed_duration\n"
        "def overtime_label(m):\n    return 'overtime ' + fmt_signed_duration(m)\n"
    )
    own = "def fmt_signed_duration(m):\n    return str(m)\ndef overtime_label(m):\n"
    own += "    return fmt_signed_duration(m)\n"
    assert project_calls(mine, helpers) == 0 and project_calls(theirs, helpers) == 1
    assert project_calls(own, helpers) == 0  # its own copy of the helper is not the project's
    assert project_calls("payroll.fmt.fmt_signed_duration(3)", helpers) == 1
    assert project_calls("def f(:", helpers) == 0
    checks = [Check("overtime_label(90)", "90", "writer")]
    runs = [
        CandidateRun("", (Verdict(False, "'90h'"),)),
        CandidateRun("", (Verdict(False, "'x'"),)),
    ]
    assert rank(checks, runs, [True, False])[0].index == 0
    assert rank(checks, runs, [True, False], project=[0, 1])[0].index == 1


def test_probes_break_a_tie_the_checks_leave() -> None:
    # longest_word-like: every candidate fails the same writer check, each returning its own
    # value there (a tie broken three ways), so the checks' calls agree on nothing; on the
    # probes the three right ones do the same and the greedy one does not
    checks = [Check("f('a bb cc')", "'a'", "writer")]
    runs = [CandidateRun("", (Verdict(False, repr(w)),)) for w in ("a", "bb", "cc", "bb ")]
    right = ["'ccc'", "''", "raised ValueError"]
    observed = [["'c'", "''", "'x'"], right, right, ["'ccc'", "''", "raised IndexError"]]
    assert rank(checks, runs, [True, False, False, False])[0].index == 0
    best = rank(checks, runs, [True, False, False, False], observed=observed)[0]
    assert best.index == 1 and best.agreement == agreement(runs, observed)[1] == 6
    # a run whose probes gave nothing is compared on the checks' calls alone
    assert agreement(runs, [[], right, right, []]) == [0, 3, 3, 0]
    # a gated-out run agrees with nothing
    assert agreement([CandidateRun("syntax error"), *runs[1:]], observed)[0] == 0


def test_a_rounds_greedy_answers_are_one_voter_not_two() -> None:
    # reverse_words, as seen twice: both greedy answers (plain and coder prompt) wrote the
    # same wrong code (words kept in order), two samples reversed them; every candidate
    # failed the same wrong writer checks, so agreement decided, and the greedy pair outvoted
    # the two independent samples
    checks = [Check("reverse_words('a b')", "'b a'", "writer")]
    runs = [CandidateRun("", (Verdict(False, "'x'"),))] * 4
    wrong, right = ["'a b'", "''"], ["'b a'", "''"]
    observed = [wrong, wrong, right, right]
    greedy = [True, True, False, False]
    assert rank(checks, runs, greedy, (), observed)[0].index == 0  # each its own voter
    voters = [("greedy", 0), ("greedy", 0), 2, 3]
    ranked = rank(checks, runs, greedy, (), observed, voters)
    assert ranked[0].index == 2
    # the greedy pair counts as its members' mean; a candidate gets nothing from its own voter
    assert agreement(runs, observed, voters) == [4.0, 4.0, 5.0, 5.0]
    # where the greedy pair is right and one sample agrees, the greedy answer still wins
    observed = [right, right, right, wrong]
    assert rank(checks, runs, greedy, (), observed, voters)[0].index == 0


def test_crashing_alike_is_not_agreement() -> None:
    # transpose, as seen in the eval of d62464f: both greedy answers and a sample index past
    # a non-square matrix's rows on every varied input, one sample transposes it; the
    # shared IndexError outvoted the right one
    checks = [Check("transpose([[1, 2], [3, 4]])", "[[1, 3], [2, 4]]", "writer")]
    runs = [CandidateRun("", (Verdict(True, "[[1, 3], [2, 4]]"),))] * 4
    crash, right = ["raised IndexError"] * 3, ["[[1], [2]]", "[[1, 3]]", "[]"]
    observed = [crash, crash, crash, right]
    voters = [("greedy", 0), ("greedy", 0), 2, 3]
    # only the checks' call counts: a tie, which the crashes then break
    assert agreement(runs, observed, voters) == [2.0, 2.0, 2.0, 2.0]
    assert rank(checks, runs, [True, True, False, False], (), observed, voters)[0].index == 3
    # refusing alike on purpose (a ValueError) is still agreement
    refuse = [["raised ValueError"]] * 2
    assert agreement(runs[:2], refuse) == [2, 2]


def test_a_crash_on_a_writers_call_is_feedback_whatever_its_expected_value() -> None:
    from graphs.coding import failure_lines

    checks = [
        Check("units_shipped('shop.db', 'TEA-01')", "100", "writer"),  # a made-up value
        Check("units_shipped('shop.db', 'MUG-01')", "7", "writer"),
    ]
    crashed = CandidateRun(
        gate="",
        verdicts=(
            Verdict(False, error="OperationalError: no such table: order_lines"),
            Verdict(False, got="3"),
        ),
    )
    other = CandidateRun(gate="", verdicts=(Verdict(False, got="14"), Verdict(False, got="3")))
    runs = [crashed, other]
    assert supported_failures(0, checks, runs) == [0]  # the crash; not the wrong value
    assert supported_failures(1, checks, runs) == []  # nothing supports either expected value
    [line] = failure_lines([0], checks, runs, 0)
    assert "no such table: order_lines" in line and "100" not in line.split("raised")[1]
