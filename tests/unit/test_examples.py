"""agents.examples: the checks a task statement states itself (a stub's doctests, prose such
as ``f(3) == 9`` or ``"ab" becomes "ba"``), its entry point, and the call on the run's own
database that a right solution must answer."""

from __future__ import annotations

from agents.examples import TRUSTED, entry_point_of, project_checks, statement_checks, stub_source
from agents.selection import required, supported_failures
from tools.check_runner import CandidateRun, Check, EntryPoint, Verdict, run_checks

STUB = 'def add(a, b):\n    """Sum.\n\n    >>> add(2, 3)\n    5\n    """\n'
ADD = EntryPoint("add", "function", ("a", "b"))


def test_examples_are_read_from_a_stub_and_from_prose() -> None:
    assert entry_point_of(STUB) == ADD
    assert statement_checks(STUB, ADD) == [Check("add(2, 3)", "5", "statement")]
    prose = "Write `factorial(n)`. factorial(0) == 1. `factorial(3)` returns 6."
    entry = entry_point_of(prose)
    assert entry == EntryPoint("factorial", "function", ("n",))
    labels = [c.label() for c in statement_checks(prose, entry)]
    assert labels == ["factorial(0) == 1", "factorial(3) == 6"]
    assert statement_checks("Write `is_even(n)`: is_even(n) returns True.", None) == []


def test_an_entry_point_asked_for_unquoted_as_users_type_it() -> None:
    """Seen through the Python entrypoint: "Write is_leap(year): ..." was no entry point, so
    the run waited on the researcher's brief, which named none: nothing was checked."""
    leap = "Write is_leap(year): True for leap years, e.g. is_leap(2000) is True."
    assert entry_point_of(leap) == EntryPoint("is_leap", "function", ("year",))
    assert [c.label() for c in statement_checks(leap, entry_point_of(leap))] == [
        "is_leap(2000) == True"
    ]
    asked = {
        "write a python function called slugify(title, sep='-') that": (
            "slugify",
            ("title", "sep"),
        ),
        "Implement a class Stack() with push and pop.": ("Stack", ()),
        "Please create the helper named parse_row(line, *, strict=False).": (
            "parse_row",
            ("line",),
        ),
        "Write `total(prices: dict[str, int], /, rate=0.2)`.": ("total", ("prices", "rate")),
        "Write `pick(a, b) or pick(c)`.": None,  # not a signature (and no other)
        "Write a function that returns max(a, b) of two numbers.": None,  # not its name
        "Add print(x) calls to trace it.": None,  # a builtin, not the code to write
        "Write code that prints hello.": None,
    }
    for text, want in asked.items():
        entry = entry_point_of(text)
        got = None if entry is None else (entry.name, entry.parameters)
        assert got == want, text
    # a backticked name still comes first
    both = "Write `area(r)`; write radius(x) later."
    assert entry_point_of(both) == EntryPoint("area", "function", ("r",))


def test_a_doctest_session_with_state_runs_every_earlier_line_before_a_check() -> None:
    stub = (
        "class Lot:\n"
        '    """Spaces.\n\n'
        "    >>> lot = Lot(1)\n    >>> lot.park('A')\n    True\n"
        "    >>> lot.park('B')\n    False\n    >>> lot.leave('A')\n"
        "    >>> lot.free()\n    1\n"
        '    """\n'
    )
    entry = entry_point_of(stub)
    checks = statement_checks(stub, entry)
    assert [c.label() for c in checks] == [
        "lot = Lot(1); lot.park('A') == True",
        # the lot is full because the shown call parked A: run without it, B would fit
        "lot = Lot(1); lot.park('A'); lot.park('B') == False",
        "lot = Lot(1); lot.park('A'); lot.park('B'); lot.leave('A'); lot.free() == 1",
    ]
    lot = (
        "class Lot:\n    def __init__(self, n):\n        self.n, self.cars = n, set()\n"
        "    def park(self, car):\n        if len(self.cars) >= self.n:\n"
        "            return False\n        self.cars.add(car)\n        return True\n"
        "    def leave(self, car):\n        self.cars.remove(car)\n"
        "    def free(self):\n        return self.n - len(self.cars)\n"
    )
    assert run_checks(lot, checks, entry).passed == (True, True, True)
    # a function's examples share no state: each check is its call alone
    two = STUB.replace('    """\n', '    >>> add(1, 1)\n    2\n    """\n')
    assert all(not c.setup for c in statement_checks(two, ADD))


def test_a_one_argument_function_s_examples_in_words_are_read() -> None:
    prose = (
        "Write `encode(text)`: each run becomes the character and its count, e.g. "
        '"aaabcc" becomes "a3b1c2", and [1] -> [2]. An empty string returns "". '
        "An empty or blank list returns an empty dict. The result 3 becomes x."
    )
    entry = entry_point_of(prose)
    assert entry is not None and entry.parameters == ("text",)
    assert [c.label() for c in statement_checks(prose, entry)] == [
        'encode("") == ""',
        "encode([]) == {}",
        'encode("aaabcc") == "a3b1c2"',
        "encode([1]) == [2]",
    ]
    # two arguments: which one the words give is not known
    two = 'Write `pad(text, width)`. "ab" becomes "ab  ". An empty string returns "".'
    assert statement_checks(two, entry_point_of(two)) == []


def test_gives_and_yields_read_as_becomes() -> None:
    prose = (
        'Write `parse_flag(text)`: "on" and "1" give True, "off" gives False, '
        'so " Yes " gives True; [3, 1] yields "1-3". The word given is kept.'
    )
    assert [c.label() for c in statement_checks(prose, entry_point_of(prose))] == [
        'parse_flag("1") == True',
        'parse_flag("off") == False',
        'parse_flag(" Yes ") == True',
        'parse_flag([3, 1]) == "1-3"',
    ]


def test_a_database_only_function_is_checked_on_the_real_database() -> None:
    entry = EntryPoint("best_selling_title", "function", ("db_path",))
    [check] = project_checks(entry, "/data/shop.db")
    assert check.call == "best_selling_title('shop.db') is not None" and check.source == "project"
    assert project_checks(entry, None) == []
    assert project_checks(EntryPoint("units", "function", ("db_path", "sku")), "shop.db") == []
    assert project_checks(EntryPoint("title", "function", ("book_id",)), "shop.db") == []
    # trusted as the statement's examples are: required, and its failure is feedback
    crashed = CandidateRun(gate="", verdicts=(Verdict(False, error="OperationalError: x"),))
    assert required([check], [crashed]) == [0] and supported_failures(0, [check], [crashed]) == [0]


def test_a_doctest_that_raises_becomes_a_check_of_the_exception() -> None:
    stub = (
        "def half(n):\n"
        '    """Half of an even number.\n\n'
        "    >>> half(4)\n    2\n"
        "    >>> half(3)\n    Traceback (most recent call last):\n        ...\n"
        "    ValueError: odd\n"
        '    """\n'
    )
    entry = entry_point_of(stub)
    assert entry == EntryPoint("half", "function", ("n",))
    assert statement_checks(stub, entry) == [
        Check("half(4)", "2", "statement"),
        Check("half(3)", "None", "statement", raises="ValueError"),
    ]


def test_the_entry_point_comes_from_a_fenced_stub_a_named_call_or_a_def() -> None:
    fenced = "Implement this:\n\n```python\nclass Stack:\n    def __init__(self, size):\n"
    fenced += "        ...\n```\nThanks."
    assert stub_source(fenced) == "class Stack:\n    def __init__(self, size):\n        ...\n"
    assert entry_point_of(fenced) == EntryPoint("Stack", "class", ("size",))
    assert entry_point_of("Write `Queue(capacity=3)`.") == EntryPoint(
        "Queue", "class", ("capacity",)
    )
    assert entry_point_of("Write `f(a b)`, call it def slugify.") == EntryPoint(
        "slugify", "function"
    )
    assert entry_point_of("Sort the numbers.") is None and stub_source("Sort them.") is None


def test_prose_examples_that_are_not_literals_are_skipped_never_guessed() -> None:
    prose = (
        "Write `f(n)`. f(x) == 2 for any x; f(3) == y; f(1) == 1. "
        "And f(2) returns Trueish things, f([1, 2]) returns 3."
    )
    checks = statement_checks(prose, entry_point_of(prose))
    assert [c.label() for c in checks] == ["f(1) == 1", "f([1, 2]) == 3"]
    assert all(c.source == "statement" for c in checks)
    # a class's examples in prose are not read: the call alone says nothing of its state
    assert statement_checks("Write `Box(n)`. Box(2) == 2.", EntryPoint("Box", "class")) == []


def test_a_call_on_the_database_is_made_only_for_a_database_parameter() -> None:
    count = EntryPoint("count_rows", "function", ("conn",))
    assert project_checks(count, "C:\\data\\shop.db") == [
        Check("count_rows('shop.db') is not None", "True", "project")
    ]
    assert project_checks(EntryPoint("f", "function", ("database",)), "x/y.sqlite") == [
        Check("f('y.sqlite') is not None", "True", "project")
    ]
    assert project_checks(EntryPoint("f", "function", ("text",)), "shop.db") == []
    assert project_checks(EntryPoint("Shop", "class", ("db_path",)), "shop.db") == []
    assert project_checks(count, "") == []
    assert sorted(TRUSTED) == ["project", "statement"]
