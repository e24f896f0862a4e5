"""Quick fixes to a candidate (:mod:`agents.repair`): the prompt it copied, the imports it
forgot, and the project's names to them."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.examples import entry_point_of
from agents.repair import add_missing_imports, without_echo, without_existing_creates
from graphs.state import InputState
from graphs.swarm import graph
from tests.fakes import FakeOpenAI
from tests.support.graph import ctx
from tests.support.scripts import audits, brief, code, suite
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
