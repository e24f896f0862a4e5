"""The asserts the candidates wrote beside their code, as tests of every other candidate.

The coder model often ends its answer with a check function of its own
(``assert reverse_words("a b") == "b a"``). Its expected values are the model's guesses, as
often wrong as its code, so they never approve, block or feed a revision. But pooled from
every candidate of the first round and run against all of them, they tell apart candidates
that the task's examples and the test writer's checks cannot (CodeT's dual agreement: a
model-written test that more candidates pass is more likely right, and a candidate that
passes more such tests is more likely right). :func:`agents.selection.rank` weighs each one
by the share of candidates that pass it.

Measured by replaying the stored evals' dev split (bench/results, 2026-12-03 and -04) on the
100 choices where some candidates were right and some wrong: this tie-break, before the
behaviour agreement, chose right 88 times instead of 82 (reverse_words 3, transpose 3,
remove_duplicates 1 won; mode 1 lost). Reading loops over literal tables of expected values
as well changed none of those choices, so it is not done.

Pure functions (no I/O): :func:`peer_checks` reads the asserts out of the code.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from itertools import zip_longest

from tools.check_runner import Check, EntryPoint
from tools.pysource import parse

MAX_PEER_CHECKS = 24
"""Asserts pooled per task (each candidate runs them all in one sandboxed process)."""
_MAX_CALL_CHARS = 300
"""An assert whose call or expected value is longer is skipped (a probe's bound too)."""


def _literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def _asserts(code: str, name: str) -> Iterator[tuple[str, str]]:
    """``(call, expected)`` of each ``assert name(literals) == literal`` in ``code``."""
    try:
        tree = parse(code)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assert) or not isinstance(node.test, ast.Compare):
            continue
        test = node.test
        if len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq | ast.Is):
            continue
        call, expected = test.left, test.comparators[0]
        if not (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Name)
            and call.func.id == name
            and not call.keywords
            and all(_literal(arg) for arg in call.args)  # (a starred one is no literal)
            and _literal(expected)
        ):
            continue
        yield ast.unparse(call), ast.unparse(expected)


def peer_checks(
    codes: Sequence[str], entry: EntryPoint | None, limit: int = MAX_PEER_CHECKS
) -> list[Check]:
    """Up to ``limit`` distinct asserts on the entry point found in ``codes``, in turn.

    Only a function's direct calls with literal arguments and a literal expected value (a
    class's method calls need state, and a computed expected value repeats the code). The
    same call asserted twice keeps its first expected value. Taken in turn from each code, so
    one long check function does not fill the pool.
    """
    if entry is None or entry.kind != "function":
        return []
    seen: set[str] = set()
    chosen: list[Check] = []
    for row in zip_longest(*(_asserts(code, entry.name) for code in codes)):
        for found in row:
            if found is None or found[0] in seen or max(map(len, found)) > _MAX_CALL_CHARS:
                continue
            seen.add(found[0])
            chosen.append(Check(call=found[0], expected=found[1], source="peer"))
            if len(chosen) >= limit:
                return chosen
    return chosen
