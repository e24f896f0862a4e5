"""The test writer agent: checks of the task written from the statement alone.

It never sees any candidate's code, so its expected values are a second, independent opinion
of what the task asks; selection weighs each check by how many candidates agree with it
(:mod:`agents.selection`), so a wrong expected value costs little.
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Sequence

from langchain_core.messages import BaseMessage
from pydantic import BaseModel, ConfigDict, Field

from agents.prompts import PromptLayout, layout, project_part
from agents.schemas import CheckCase
from tools.check_runner import Check, EntryPoint
from tools.pysource import parse


class TestSuite(BaseModel):
    """The test writer's answer: calls of the entry point and the values they must return."""

    model_config = ConfigDict(extra="forbid")
    __test__ = False  # not a pytest test class, despite the name

    checks: list[CheckCase] = Field(
        min_length=1,
        max_length=6,
        description="Calls of the requested function (or method) and their exact results.",
    )


SYSTEM = """\
You are the test writer in a team of software agents. You read a programming task and write
checks for the code another agent will write; you do not write that code. Each check is one
Python expression that calls the requested function (for a class: creates an instance and
calls a method, e.g. Counter(2).value()) and the exact value it must return, as Python source.
Work every expected value out carefully from the task's own words. Cover a plain case, the
edge cases the task names (empty input, zero, negative, ties) and one larger case. Use only
literal arguments. Answer with one JSON object that follows the given schema, nothing else.

Example for "Write add(a, b) returning the sum":
{"checks":[{"call":"add(2, 3)","expected":"5"},{"call":"add(-1, 1)","expected":"0"}]}

Example for "Write a class Counter(start) with increment(), which adds one and returns the count":
{"checks":[{"call":"Counter(2).increment()","expected":"3"},{"call":"Counter(0).increment()","expected":"1"}]}"""
"""The test writer's rules. The class example is there because the 0.5B writer copies its
example's shape: with the function example alone it called a class's methods on the class
(``BankAccount.deposit(2, 3) == 5``), which fails every candidate. Measured with the greedy
writer on the dev split and bench/tasks-hard (75 tasks) against each task's reference: on
the 8 class tasks, checks that hold 0 of 13 -> 9 of 32 (4 tasks with one or more); over all
75 tasks 115 of 181 -> 132 of 221, tasks with a check that holds 38 -> 45. The same example
in the user message of a class task only was copied verbatim (``Counter(2)...``: 0 kept)."""


def test_writer_messages(
    task: str,
    entry: EntryPoint | None,
    order: PromptLayout = "stable_first",
    *,
    project: str = "",
) -> list[BaseMessage]:
    """The test writer's prompt: its rules, then the task verbatim.

    ``project``: the project's snippets (:func:`agents.prompts.project_part`) before the task.
    """
    user = project_part(project) if project else "Task:\n"
    user += f"{task.strip()}\n"
    if entry is not None:
        user += f"\nThe checks call `{entry.name}`.\n"
    return layout(SYSTEM, user, order)


def writer_checks(suite: TestSuite, entry: EntryPoint | None) -> list[Check]:
    """The suite's well-formed checks that call the entry point.

    A check of anything else proves nothing; one whose expected value names something
    undefined (``Fizz`` for ``"Fizz"``: the 0.5B writer drops quotes) or calls the code under
    test, or whose call uses a name it never defines, fails every candidate whatever it does.
    """
    return well_formed_checks(
        [(_unpadded(case.call), _quoted(case.expected)) for case in suite.checks], entry
    )


def well_formed_checks(cases: Sequence[tuple[str, str]], entry: EntryPoint | None) -> list[Check]:
    """The ``(call, expected)`` pairs that call the entry point and can pass, as checks."""
    wanted = entry.name if entry is not None else ""
    return [
        _check(call, expected)
        for call, expected in cases
        if (not wanted or wanted in call) and well_formed(call, expected, wanted)
    ]


_STRING = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")
_PADDED = re.compile(r"(?<![\w.])0+(?=\d)")
_OPENERS = tuple("'\"([{")
_SAYS_RAISES = re.compile(r"\b(\w+(?:Error|Exception)):")


def _unpadded(call: str) -> str:
    """``call`` with its zero-padded integers unpadded, when only they stop it parsing.

    The 0.5B writer copies a padded number from the project's data as an argument
    (``ticket_id('HAM', 2024, 00017)``), which Python does not parse. Strings keep their
    zeros.
    """
    if _free_names(call) is not None:
        return call
    parts, at = [], 0
    for found in _STRING.finditer(call):
        parts += [_PADDED.sub("", call[at : found.start()]), found.group()]
        at = found.end()
    fixed = "".join([*parts, _PADDED.sub("", call[at:])])
    return fixed if _free_names(fixed) is not None else call


def _quoted(expected: str) -> str:
    """``expected`` as the string it spells, where the writer dropped the quotes.

    The 0.5B writer writes ``Fizz`` for ``"Fizz"``, ``Luis Ortega`` for a name read from a
    database, ``HAM/2024/00017`` for an id in the project's format. Such an expected value
    names nothing or does not parse, and the check was dropped. Read as a string when it is
    one line with a letter that does not parse as an expression and opens no literal (a
    truncated ``[1, 2`` stays dropped, and so does text with a backtick: a fence the
    decoding ran into), or is one name that is no builtin and no exception's (``MyError``
    stays dropped). Text that quotes a built-in exception's message (``Traceback ...
    ValueError: per_page must be at least 1``) is that exception: the call raises it.
    A wrong reading costs little: a check no candidate passes weighs nothing
    (:func:`agents.selection.support`).

    Measured with the greedy writer on the dev splits, against each task's reference: on the
    83 context-free tasks the checks that hold went from 155 of 231 to 197 of 293, and the
    tasks with one from 55 to 64; on the 27 project tasks from 14 of 53 to 22 of 73, and
    from 9 tasks to 12 (patient_id, customer_name, ticket_id).
    """
    text = expected.strip()
    if "\n" in text or not any(ch.isalpha() for ch in text) or text.startswith(_OPENERS):
        return expected
    try:
        node = parse(text, mode="eval").body
    except SyntaxError:
        said = _SAYS_RAISES.search(text)
        if said is not None:  # "Traceback ... ValueError: x": the call raises it
            return said.group(1) if _exception_named(said.group(1)) else expected
        return expected if "`" in text else repr(text)
    lone = isinstance(node, ast.Name) and node.id not in _BUILTINS
    if lone and not text.endswith(("Error", "Exception", "Warning")):
        return repr(text)
    return expected


def _check(call: str, expected: str) -> Check:
    """The writer's check; an expected exception (``ValueError``) means the call raises it.

    The 0.5B writer says "raises" that way (``factorial(-1) == ValueError``: 10 of 860 checks
    in three evals). Read as a value, no code returns it: the check failed every candidate,
    sent right code to a revision round, and left a right answer reported unresolved.
    """
    raised = _exception_named(expected)
    if raised is None:
        return Check(call, expected, "writer")
    return Check(call, "None", "writer", raises=raised)


def _exception_named(expected: str) -> str | None:
    """The built-in exception that ``expected`` names (``ValueError``, ``ValueError("x")``)."""
    try:
        node = parse(expected.strip(), mode="eval").body
    except SyntaxError:
        return None
    if isinstance(node, ast.Call):
        node = node.func
    if not isinstance(node, ast.Name):
        return None
    kind = getattr(builtins, node.id, None)
    if isinstance(kind, type) and issubclass(kind, BaseException):
        return node.id
    return None


_BUILTINS = frozenset(dir(builtins))


def well_formed(call: str, expected: str, entry: str = "") -> bool:
    """Whether a check can pass at all: both parse as expressions and use no undefined name.

    ``call`` may use the entry point's name and builtins; ``expected`` only builtins (a value,
    not another call of the code under test).
    """
    names = _free_names(call), _free_names(expected)
    if names[0] is None or names[1] is None:
        return False
    return names[0] <= _BUILTINS | {entry} and names[1] <= _BUILTINS


def _free_names(source: str) -> set[str] | None:
    """The names an expression reads that it does not bind itself; None if it does not parse."""
    try:
        tree = parse(source.strip(), mode="eval")
    except SyntaxError:
        return None
    bound: set[str] = set()
    read: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (read if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    return read - bound
