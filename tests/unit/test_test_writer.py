"""agents.test_writer: the test writer's prompt (the task verbatim, the project's snippets
before it, the entry point named) and which of its checks can pass at all."""

from __future__ import annotations

from langchain_core.messages import HumanMessage, SystemMessage

from agents import test_writer as writer
from agents.prompts import ANSWER_NOW, PROJECT
from agents.schemas import CheckCase
from tools.check_runner import Check, EntryPoint

ADD = EntryPoint("add", "function", ("a", "b"))


def test_writer_checks_that_cannot_pass_are_dropped() -> None:
    from agents.schemas import CheckCase
    from agents.test_writer import TestSuite, writer_checks
    from tools.check_runner import EntryPoint

    suite = TestSuite.model_construct(
        checks=[
            CheckCase(call="fizzbuzz(3)", expected='["1", "2", "Fizz"]'),
            CheckCase(call="fizzbuzz(2)", expected="[1, 2"),  # cut short: does not parse
            CheckCase(call="fizzbuzz(n)", expected="[]"),  # n is never defined
            CheckCase(call="fizzbuzz(5)", expected="fizzbuzz(5)"),  # the code judges itself
            CheckCase(call="fizzbuzz(0", expected="[]"),  # does not parse
            CheckCase(call="fizzbuzz(0)", expected="list()"),
            CheckCase(call="len(fizzbuzz(4))", expected="4"),
            CheckCase(call="sorted(map(lambda x: x, fizzbuzz(1)))", expected="['1']"),
        ]
    )
    kept = writer_checks(suite, EntryPoint("fizzbuzz", "function", ("n",)))
    assert [c.call for c in kept] == [
        "fizzbuzz(3)",
        "fizzbuzz(0)",
        "len(fizzbuzz(4))",
        "sorted(map(lambda x: x, fizzbuzz(1)))",
    ]


def test_the_writer_gets_the_task_after_the_project_and_the_function_its_checks_call() -> None:
    task = "  Write add(a, b) returning the sum.  "
    system, user = writer.test_writer_messages(task, ADD)
    assert system == SystemMessage(writer.SYSTEM)
    assert user == HumanMessage(
        "Task:\nWrite add(a, b) returning the sum.\n\nThe checks call `add`.\n"
    )
    project = "# pricing.py\nVAT = 0.2\n"
    _, user = writer.test_writer_messages(task, None, project=project)
    assert user.content == (
        PROJECT.format(project=project.strip(), fence="```")
        + "Write add(a, b) returning the sum.\n"
    )
    first, answer = writer.test_writer_messages(task, ADD, "variable_first")
    assert str(first.content).startswith("Task:\nWrite add(a, b)")
    assert str(first.content).endswith(writer.SYSTEM) and answer == HumanMessage(ANSWER_NOW)


def test_a_check_is_well_formed_only_with_the_names_it_may_use() -> None:
    assert writer.well_formed("add(1, 2)", "3", "add")
    assert not writer.well_formed("add(1, 2)", "3")  # the entry point is the only name given
    assert writer.well_formed("len([x for x in range(3)])", "3")  # x is bound by the loop
    assert writer.well_formed("(lambda a: add(a, 2))(1)", "3", "add")
    assert writer.well_formed("sorted({'b', 'a'})", "['a', 'b']")
    assert not writer.well_formed("add(a, 2)", "3", "add")
    assert not writer.well_formed("add(1, 2)", "add(2, 1)", "add")  # the code judges itself
    assert not writer.well_formed("add(1, 2", "3", "add")
    assert not writer.well_formed("add(1, 2)", "3 +", "add")


def test_without_an_entry_point_only_checks_of_builtins_are_kept() -> None:
    suite = writer.TestSuite.model_construct(
        checks=[
            CheckCase(call="add(1, 2)", expected="3"),
            CheckCase(call="sum([1, 2])", expected="3"),
        ]
    )
    assert writer.writer_checks(suite, ADD) == [Check("add(1, 2)", "3", "writer")]
    assert writer.writer_checks(suite, None) == [Check("sum([1, 2])", "3", "writer")]


def test_an_expected_exception_is_read_as_the_call_raising_it() -> None:
    """The writer says "raises" as ``factorial(-1) == ValueError``: as a value, no code
    returns it, and the check failed every candidate."""
    suite = writer.TestSuite.model_construct(
        checks=[
            CheckCase(call="add(-1, 2)", expected="ValueError"),
            CheckCase(call="add(None, 2)", expected="TypeError('no None')"),
            CheckCase(call="add(1, 2)", expected="'ValueError'"),  # a string: a value
            CheckCase(call="add(1, 2)", expected="int"),  # a type, not an exception
            CheckCase(call="add(0, 2)", expected="MyError"),  # not a builtin: dropped
        ]
    )
    assert writer.writer_checks(suite, ADD) == [
        Check("add(-1, 2)", "None", "writer", raises="ValueError"),
        Check("add(None, 2)", "None", "writer", raises="TypeError"),
        Check("add(1, 2)", "'ValueError'", "writer"),
        Check("add(1, 2)", "int", "writer"),
    ]


def test_an_expected_value_written_without_its_quotes_is_read_as_the_string() -> None:
    """The 0.5B writer drops the quotes of a string (``Fizz``, a name from the database, an id
    in the project's format); as written, such a check names nothing or does not parse."""
    entry = EntryPoint("ticket_id", "function", ("branch", "year", "number"))
    suite = writer.TestSuite.model_construct(
        checks=[
            # a padded number copied from the project's data: Python does not parse 00017
            CheckCase(call="ticket_id('HAM', 2024, 00017)", expected="HAM/2024/00017"),
            CheckCase(call="ticket_id('BRE', 2024, 7)", expected="Fizz"),
            CheckCase(call="ticket_id('B', 1, 2)", expected="Luis Ortega"),
            CheckCase(call="ticket_id('B', 1, 3)", expected="NOTE;MAT;S-1042;87"),
            CheckCase(call="ticket_id('007', 1, 4)", expected="'007/1/00004'"),  # quoted
            CheckCase(call="ticket_id('B', 0, 5)", expected="Traceback: ValueError: no year"),
            # left as they were, and dropped as before
            CheckCase(call="ticket_id('B', 1, 6)", expected="MyError"),  # no builtin
            CheckCase(call="ticket_id('B', 1, 7)", expected="MyError: bad"),
            CheckCase(call="ticket_id('B', 1, 8)", expected="x + 1"),  # an expression
            CheckCase(call="ticket_id('B', 1, 9)", expected="['B/1/9'"),  # cut short
            CheckCase(call="ticket_id('B', 1, 10)", expected="B/1/10```json"),  # a fence
            CheckCase(call="ticket_id('B', 1, 11)", expected="1 / 0 +"),  # no letter
            CheckCase(call="ticket_id('B', 1, 012", expected="'x'"),  # no parse, padded or not
        ]
    )
    assert writer.writer_checks(suite, entry) == [
        Check("ticket_id('HAM', 2024, 17)", "'HAM/2024/00017'", "writer"),
        Check("ticket_id('BRE', 2024, 7)", "'Fizz'", "writer"),
        Check("ticket_id('B', 1, 2)", "'Luis Ortega'", "writer"),
        Check("ticket_id('B', 1, 3)", "'NOTE;MAT;S-1042;87'", "writer"),
        Check("ticket_id('007', 1, 4)", "'007/1/00004'", "writer"),
        Check("ticket_id('B', 0, 5)", "None", "writer", raises="ValueError"),
    ]
    # a string's zeros stay; a float's and a hex number's too
    assert writer._unpadded("f('007', 007, 0.5, 0x1F, 100)") == "f('007', 7, 0.5, 0x1F, 100)"
    assert writer._unpadded("f(1)") == "f(1)"
