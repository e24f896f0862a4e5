"""Quick fixes to a candidate (:mod:`agents.repair`): the prompt it copied, the imports it
forgot, and the project's names to them."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.examples import entry_point_of
from agents.repair import (
    add_missing_imports,
    under_entry_name,
    without_echo,
    without_existing_creates,
)
from graphs.state import InputState
from graphs.swarm import graph
from tests.fakes import FakeOpenAI
from tests.support.graph import ctx
from tests.support.scripts import audits, brief, code, suite
from tools.check_runner import gate
from tools.project_rank import project_context

PROJECT = {"round_cents": "from pricing import round_cents"}


def test_a_standard_module_and_a_project_name_are_imported_after_the_docstring() -> None:
    source = (
        '"""Totals."""\nfrom __future__ import annotations\n\n\n'
        "def total(path):\n"
        "    rows = sqlite3.connect(path).execute('SELECT 1').fetchall()\n"
        "    return round_cents(math.fsum(r[0] for r in rows))\n"
    )
    fixed, added = add_missing_imports(source, PROJECT)
    assert added == ["import math", "from pricing import round_cents", "import sqlite3"]
    assert fixed.startswith(
        '"""Totals."""\nfrom __future__ import annotations\n'
        "import math\nfrom pricing import round_cents\nimport sqlite3\n\n\ndef total(path):"
    )
    compile(fixed, "solution.py", "exec")


def test_names_bound_anywhere_in_the_module_are_left_alone() -> None:
    source = (
        "import json\n"
        "LIMIT = 3\n"
        "def load(text):\n"
        "    global cache\n"
        "    cache = json.loads(text)\n"
        "    return [math for math in cache][:LIMIT]\n"
        "def again():\n"
        "    return cache, len(LIMIT.__class__.__name__), print\n"
        "class Box:\n"
        "    size = LIMIT\n"
    )
    assert add_missing_imports(source, PROJECT) == (source, [])


def test_unqualified_names_come_from_their_one_module() -> None:
    source = (
        "def f(xs: List[int]) -> Dict[str, int]:\n"
        "    seen = defaultdict(int)\n"
        "    return Counter(xs), Decimal('1.5').quantize(Decimal('1'), ROUND_HALF_UP), seen\n"
    )
    fixed, added = add_missing_imports(source)
    assert set(added) == {
        "from typing import List",
        "from typing import Dict",
        "from collections import defaultdict",
        "from collections import Counter",
        "from decimal import Decimal",
        "from decimal import ROUND_HALF_UP",
    }
    namespace: dict[str, object] = {}
    exec(compile(fixed, "solution.py", "exec"), namespace)
    assert callable(namespace["f"])


@pytest.mark.parametrize(
    ("use", "line"),
    [
        ("datetime.strptime(s, '%Y-%m-%d')", "from datetime import datetime"),
        ("datetime.date(2024, 1, 1)", "import datetime"),
    ],
)
def test_datetime_is_the_class_or_the_module_as_the_code_uses_it(use: str, line: str) -> None:
    assert add_missing_imports(f"def f(s):\n    return {use}\n")[1] == [line]


@pytest.mark.parametrize(
    "source",
    [
        "def f(:\n    return math.pi\n",  # does not parse
        "from pricing import *\ndef f():\n    return math.pi\n",  # a star import: unknowable
        "def f():\n    return this.s + antigravity.x + unknown_helper()\n",  # no known source
    ],
)
def test_what_cannot_be_known_is_left_as_written(source: str) -> None:
    assert add_missing_imports(source, PROJECT) == (source, [])


def test_the_project_map_gives_each_name_its_one_import(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "shop").mkdir(parents=True)
    (root / "shop" / "__init__.py").write_text("")
    (root / "shop" / "money.py").write_text(
        "CURRENCY = 'CHF'\n\n\ndef round_cents(x):\n    return x\n"
    )
    (root / "shop" / "labels.py").write_text("def render(x):\n    return x\n")
    (root / "report.py").write_text("def render(x):\n    return x\n")
    symbols = project_context(root, "Write `price(x)` with round_cents.").symbols
    assert symbols["round_cents"] == "from shop.money import round_cents"
    assert symbols["CURRENCY"] == "from shop.money import CURRENCY"
    assert symbols["money"] == "from shop import money"
    assert symbols["report"] == "import report"
    assert "render" not in symbols  # defined twice: which one was meant is a guess


async def test_a_candidate_that_forgot_the_projects_import_still_runs(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "pricing.py").write_text(
        "import math\n\n\ndef round_cents(amount):\n"
        "    return int(math.floor(amount * 100 + 0.5))\n"
    )
    forgot = "def price_cents(amount):\n    return round_cents(math.ceil(amount * 10) / 10)\n"
    fake_openai.script(
        brief(entry_point="price_cents"),
        code(forgot),
        suite([{"call": "price_cents(1.21)", "expected": "130"}]),
        *audits(),
    )
    out = await graph.ainvoke(
        InputState(task="Write `price_cents(amount)`.", workspace=str(root)),
        context=ctx(fake_openai, model_lookups=False),
        version="v2",
    )
    state = out.value
    assert state.status == "done", state.error
    assert state.report is not None
    solution = state.report.files["solution.py"]
    assert solution.startswith("import math\nfrom pricing import round_cents\n"), solution
    assert state.report.outcome == "approved"
    tests = state.report.tests
    assert tests is not None and tests.ok and tests.passed == 1, tests


PROMPT = (
    "The user's project (excerpts of its files, verbatim):\n\n"
    "# data/gw07.log (7 lines)\n# gateway gw-07\nMSR;0800;21.4;house-1\nMSR;0815;22.1;house-1\n\n"
    "# watering.py\ndef litres(bed):\n    return bed * 2\n\n"
    "Task:\nWrite `parse_reading(line)` that parses one log line.\n"
)


ENTRY = entry_point_of("Write `parse_reading(line)`.")


def test_a_copied_prompt_is_dropped_when_the_code_does_not_parse() -> None:
    echoed = (
        "# data/gw07.log (7 lines)\n# gateway gw-07\n"
        "MSR;0800;21.4;house-1\nMSR;0815;22.1;house-1\n\n"
        "# watering.py\ndef litres(bed):\n    return bed * 2\n\n"
        "Task:\nWrite `parse_reading(line)` that parses one log line.\n\n"
        "def parse_reading(line):\n    kind, at, celsius, sensor = line.strip().split(';')\n"
        "    return sensor, float(celsius)\n"
    )
    fixed = without_echo(echoed, PROMPT, ENTRY)
    assert fixed is not None
    assert "MSR;" not in fixed and "Task:" not in fixed and "def litres" not in fixed
    namespace: dict[str, object] = {}
    exec(compile(fixed, "solution.py", "exec"), namespace)
    parse = namespace["parse_reading"]
    assert callable(parse) and parse("MSR;0800;21.4;house-1\n") == ("house-1", 21.4)


@pytest.mark.parametrize(
    "code",
    [
        # it parses: never touched, even with copied lines
        "def litres(bed):\n    return bed * 2\n\n\ndef parse_reading(line):\n    return line\n",
        # only the copy: nothing defines the entry point once it is dropped
        "# gateway gw-07\nMSR;0800;21.4;house-1\nMSR;0815;22.1;house-1\n",
        # its own syntax error, not a copy: left for the gate to report
        "def parse_reading(line):\n    return line.split(';'\n",
    ],
)
def test_code_that_parses_or_has_nothing_else_stays_as_written(code: str) -> None:
    assert without_echo(code, PROMPT, ENTRY) is None


RECREATES = '''import sqlite3


def best_selling_title(db_path):
    conn = sqlite3.connect(db_path)
    cursor = conn.cursor()
    # the view, made again
    cursor.execute("""
        CREATE VIEW book_sales AS
        SELECT b.title, SUM(i.quantity) AS copies FROM books b JOIN order_items i
        GROUP BY b.id
    """)
    cursor.execute("SELECT title FROM book_sales ORDER BY copies DESC LIMIT 1")
    return cursor.fetchone()[0]
'''


def test_a_view_the_database_has_is_not_created_again() -> None:
    fixed, names = without_existing_creates(RECREATES, ["books", "Book_Sales"])
    assert names == ["book_sales"]
    assert "CREATE VIEW" not in fixed
    assert (
        '    cursor.execute("SELECT title FROM book_sales ORDER BY copies DESC LIMIT 1")' in fixed
    )
    start = RECREATES.index('    cursor.execute("""')
    end = RECREATES.index('    """)\n') + len('    """)\n')
    assert fixed == RECREATES[:start] + RECREATES[end:]  # nothing else changes


def test_only_an_existing_name_alone_on_its_lines_is_dropped() -> None:
    assert without_existing_creates(RECREATES, ["other_view"]) == (RECREATES, [])
    assert without_existing_creates(RECREATES, []) == (RECREATES, [])
    shared = "import sqlite3\nc = sqlite3.connect('x')\nc.execute('CREATE TABLE t (a)'); x = 1\n"
    assert without_existing_creates(shared, ["t"]) == (shared, [])
    assert without_existing_creates("def broken(:\n", ["t"]) == ("def broken(:\n", [])
    # a block left empty keeps a pass; quoted names and IF NOT EXISTS are read
    code = (
        "def setup(conn):\n"
        "    if True:\n"
        "        conn.executescript('CREATE TABLE IF NOT EXISTS \"ord_hdr\" (a INTEGER);')\n"
        "    return conn\n"
    )
    fixed, names = without_existing_creates(code, ["ORD_HDR"])
    assert names == ["ord_hdr"]
    assert fixed == "def setup(conn):\n    if True:\n        pass\n    return conn\n"
    # a query, an insert, or a create of a new table stay
    kept = "def f(c):\n    c.execute('CREATE TABLE fresh (a)')\n    c.execute('SELECT 1 FROM t')\n"
    assert without_existing_creates(kept, ["t"]) == (kept, [])


COPIED_HELPER = '''from library.text import STOP_WORDS
import re


def catalogue_slug(title: str) -> str:
    """Return the shelf-label slug of a title."""
    words = re.findall(r"[a-z0-9]+", title.lower())
    return "-".join(w for w in words if w not in STOP_WORDS)
'''


def test_the_one_function_written_under_the_helpers_name_is_renamed_to_the_entry() -> None:
    # shelf_slug, as seen (project set, four runs): both greedy answers copied the project's
    # catalogue_slug whole, the gate dropped them, and both were right once renamed
    entry = entry_point_of("Write `shelf_slug(title)` that turns a title into its slug.")
    assert gate(COPIED_HELPER, entry) == "solution.py defines no top-level function shelf_slug"
    fixed, old = under_entry_name(COPIED_HELPER, entry)
    assert old == "catalogue_slug" and gate(fixed, entry) == ""
    assert fixed == COPIED_HELPER.replace("def catalogue_slug(", "def shelf_slug(")
    namespace: dict[str, object] = {"STOP_WORDS": {"the", "of"}}
    exec(compile(fixed.split("\n", 1)[1], "solution.py", "exec"), namespace)
    slug = namespace["shelf_slug"]
    assert callable(slug) and slug("The Name of the Rose") == "name-rose"
    # a function that calls itself keeps its old name bound
    recursive = "def fact(n):\n    return 1 if n < 2 else n * fact(n - 1)\n"
    fixed, old = under_entry_name(recursive, entry_point_of("Write `factorial(n)`."))
    assert old == "fact" and fixed.endswith("\n\nfact = factorial\n")
    namespace = {}
    exec(compile(fixed, "solution.py", "exec"), namespace)
    factorial = namespace["factorial"]
    assert callable(factorial) and factorial(5) == 120


@pytest.mark.parametrize(
    ("source", "task"),
    [
        # the entry is defined already (a helper beside it)
        ("def helper(x):\n    return x\n\n\ndef shelf_slug(title):\n    return title\n", None),
        # two candidates for the name: which one is meant is a guess
        ("def a(title):\n    return title\n\n\ndef b(title):\n    return title\n", None),
        # it takes other arguments than the task gives
        ("def catalogue_slug(title, words, sep):\n    return title\n", None),
        ("def catalogue_slug():\n    return ''\n", None),
        # bound another way at the top level: the gate says what is wrong
        ("def helper(t):\n    return t\n\n\nshelf_slug = helper\n", None),
        ("from text import catalogue_slug as shelf_slug\n\n\ndef h(t):\n    return t\n", None),
        # no parse
        ("def catalogue_slug(title:\n    return title\n", None),
        # a class is asked for
        ("def make(x):\n    return x\n", "Write a class `Stack` with push(x) and pop()."),
    ],
)
def test_code_with_the_entry_or_no_single_function_for_it_stays_as_written(
    source: str, task: str | None
) -> None:
    entry = entry_point_of(task or "Write `shelf_slug(title)` that turns a title into a slug.")
    assert under_entry_name(source, entry) == (source, None)
    assert under_entry_name(source, None) == (source, None)


def test_a_function_with_defaults_or_varargs_is_renamed_when_the_call_fits() -> None:
    entry = entry_point_of("Write `total(items, rate)`.")
    for source in (
        "def f(items, rate=0.2, rounding=2):\n    return items\n",
        "def f(items, *rest):\n    return items\n",
        "async def f(items, rate):\n    return items\n",
    ):
        fixed, old = under_entry_name(source, entry)
        assert old == "f" and "def total(" in fixed and gate(fixed, entry) == ""


async def test_a_candidate_that_copied_the_helper_under_its_name_is_run_as_the_entry(
    fake_openai: FakeOpenAI,
) -> None:
    copied = "def to_slug(title):\n    return '-'.join(title.lower().split())\n"
    fake_openai.script(
        brief(entry_point="shelf_slug"),
        code(copied),
        suite([{"call": "shelf_slug('Big Sea')", "expected": "'big-sea'"}]),
        *audits(),
    )
    out = await graph.ainvoke(
        InputState(task="Write `shelf_slug(title)` that makes a title's slug."),
        context=ctx(fake_openai, model_lookups=False),
        version="v2",
    )
    state = out.value
    assert state.status == "done", state.error
    assert state.report is not None and state.report.outcome == "approved"
    assert state.report.files["solution.py"].startswith("def shelf_slug(title):\n")
