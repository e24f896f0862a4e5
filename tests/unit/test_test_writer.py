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
            CheckCase(call="fizzbuzz(2)", expected="Fizz"),  # quotes dropped: a NameError
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
