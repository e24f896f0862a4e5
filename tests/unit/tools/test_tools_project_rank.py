"""tools.project_rank: which snippets of a project map a task needs (BM25 with bonuses, what
the best entries use pulled in after them), and the context rendered best first within a
budget, with the import lines of the Python shown and every name's import."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.shop_project import table_db, write_shop
from tools.project_map import Entry, ProjectMap, build_map
from tools.project_rank import import_lines, project_context, rank, render, symbol_imports


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    return write_shop(tmp_path / "shop")


def test_shipping_rates_rank_the_shipping_config_first(shop: Path) -> None:
    project = build_map(shop)
    ranked = rank(project, "Compute the shipping rates for a parcel to the EU")
    configs = [e.path for _, e in ranked if e.kind == "config"]
    assert configs[0] == "config/shipping.toml"
    score = {e.path: s for s, e in ranked if e.kind == "config"}
    assert score["config/shipping.toml"] > 2 * score["config/logging.json"]
    scores = [score for score, _ in ranked]
    assert scores == sorted(scores, reverse=True) and all(s > 0 for s in scores)
    assert rank(project, "") == [] and rank(ProjectMap((), (), ()), "shipping") == []


def test_the_shop_database_brings_every_table(shop: Path, tmp_path: Path) -> None:
    db = table_db(tmp_path / "shop.db")
    context = project_context(
        shop, "Sum the shipped quantities from the shop database", database=db
    )
    tables = [u for u in context.used if u.startswith("shop.db:")]
    assert sorted(tables) == [
        "shop.db:open_lines", "shop.db:ord_hdr", "shop.db:ord_ln", "shop.db:sku_master"
    ]  # fmt: skip
    assert "qty_shipped" in context.text and "# shop.db: table sku_master" in context.text
    other = project_context(shop, "parse data/sales.txt, rounding with round_cents", database=db)
    assert other.used[:2] == ("data/sales.txt:sales.txt", "pricing.py:round_cents")
    assert not [u for u in other.used if u.startswith("shop.db:")]  # weak matches left out


def test_joined_tables_follow_a_named_table(tmp_path: Path) -> None:
    db = table_db(tmp_path / "erp.db")
    ranked = [e.name for _, e in rank(build_map(None, db), "the ord_hdr customer names")]
    assert ranked[0] == "ord_hdr"
    assert "ord_ln" in ranked  # shares ord_no and stat_cd


def test_referenced_helper_constant_and_file_are_pulled_in(shop: Path) -> None:
    project = build_map(shop)
    ranked = [f"{e.path}:{e.name}" for _, e in rank(project, "total_with_vat for a basket")]
    top = ranked.index("orders.py:total_with_vat")
    assert ranked.index("pricing.py:round_cents") > top
    assert ranked.index("pricing.py:constants") > top
    ranked = [f"{e.path}:{e.name}" for _, e in rank(project, "fix load_shipping")]
    assert ranked[:2] == ["orders.py:load_shipping", "config/shipping.toml:shipping.toml"]


def test_context_is_rendered_best_last_within_budget(shop: Path) -> None:
    task = "Use the project's round_cents helper to price the sales lines in data/sales.txt"
    context = project_context(shop, task)
    assert context.text.startswith("Other files: ")
    assert context.used[0] in {"pricing.py:round_cents", "data/sales.txt:sales.txt"}
    assert "pricing.py:round_cents" in context.used and "data/sales.txt:sales.txt" in context.used
    assert "def round_cents(amount: float) -> float:" in context.text
    # The best snippet is the last, nearest the task; the others precede it, worst first.
    snippets = context.text.split("\n\n# ")[1:]
    assert len(snippets) == len(context.used)
    firsts = [snippet.splitlines()[0] for snippet in snippets]
    assert firsts[-1] == context.used[0].partition(":")[0] or firsts[-1].startswith(
        context.used[0].partition(":")[0] + " "
    )
    for budget in (0, 60, 200, 500, 900, 3500):
        small = project_context(shop, task, budget_chars=budget)
        assert len(small.text) <= budget
    assert project_context(shop, "zzz qqq").text == ""


def test_render_joins_snippets() -> None:
    one = Entry("a.py", "python", "f", "# a.py\ndef f(): ...", frozenset({"f"}))
    two = Entry("b.csv", "data", "b.csv", "# b.csv (1 lines)\nx", frozenset({"x"}))
    assert render([one, two]) == "# a.py\ndef f(): ...\n\n# b.csv (1 lines)\nx"
    assert render([]) == ""


def test_the_python_snippets_shown_come_with_their_import_lines(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "clinic").mkdir(parents=True)
    (root / "clinic" / "__init__.py").write_text("")
    (root / "clinic" / "ids.py").write_text(
        'PREFIX = "PX"\n\n\ndef make_patient_id(number):\n'
        '    """The patient ID of a registration number."""\n'
        '    return f"{PREFIX}-{number:06d}"\n'
    )
    (root / "my-scripts").mkdir()
    (root / "my-scripts" / "patient_tool.py").write_text("def patient_tool():\n    pass\n")
    context = project_context(
        root, "Write `patient_id(number)`: the patient ID, as make_patient_id makes it."
    )
    assert "from clinic.ids import make_patient_id, PREFIX" in context.imports.splitlines()
    assert "my-scripts" not in context.imports  # no module name: nothing to import


def _python(path: str, name: str, *defines: str) -> Entry:
    """A Python entry of ``path`` that defines ``defines`` (``name`` alone when none)."""
    text = f"# {path}\ndef {name}(): ..."
    return Entry(path, "python", name, text, frozenset({name}), frozenset(defines or {name}))


def test_an_entry_too_big_for_the_budget_gives_way_to_a_smaller_one_after_it(
    tmp_path: Path,
) -> None:
    rows = "".join(f"z{i},{i}.50,{'x' * 150}\n" for i in range(20))
    (tmp_path / "shipping_rates.csv").write_text("zone,rate,note\n" + rows)
    (tmp_path / "shipping.toml").write_text("[rates]\neu = 4.50\n")
    (tmp_path / "other.txt").write_text("hello\n")
    task = "the zone rates of shipping_rates.csv, as in shipping.toml"
    ranked = [e.path for _, e in rank(build_map(tmp_path), task)]
    assert ranked == ["shipping_rates.csv", "shipping.toml", "other.txt"]
    roomy = project_context(tmp_path, task)
    assert roomy.used == ("shipping_rates.csv:shipping_rates.csv", "shipping.toml:shipping.toml")
    # other.txt scores under a quarter of the best: listed, never shown
    assert roomy.text.splitlines()[0] == "Other files: other.txt"
    tight = project_context(tmp_path, task, budget_chars=800)
    assert tight.used == ("shipping.toml:shipping.toml",)
    assert "\n\n# shipping.toml\n[rates]\neu = 4.50\n" in tight.text and len(tight.text) <= 800
    assert tight.text.splitlines()[0] == "Other files: other.txt, shipping_rates.csv"


def test_import_lines_name_each_module_once_in_the_order_shown() -> None:
    entries = [
        _python("clinic/ids.py", "make_patient_id", "make_patient_id", "PREFIX"),
        _python("pricing.py", "round_cents"),
        _python("clinic/ids.py", "check_digit"),
        _python("my-scripts/tool.py", "tool"),  # no dotted module name: nothing to import
        Entry("pricing.py", "python", "docs", "# pricing.py", frozenset()),  # defines nothing
        Entry("config/app.ini", "config", "server", "# config/app.ini", frozenset()),
    ]
    assert import_lines(entries) == (
        "from clinic.ids import PREFIX, make_patient_id, check_digit\n"
        "from pricing import round_cents"
    )
    assert import_lines([_python("pkg/__init__.py", "setup")]) == "from pkg import setup"
    assert import_lines([]) == ""


def test_symbol_imports_leave_out_a_name_defined_twice() -> None:
    entries = [
        _python("pricing.py", "round_cents"),
        _python("clinic/__init__.py", "constants", "VERSION"),
        _python("clinic/ids.py", "make_patient_id"),
        _python("a.py", "helper"),
        _python("b.py", "helper"),  # which helper was meant is a guess
        _python("my-scripts/tool.py", "tool"),
        Entry("data/x.csv", "data", "x.csv", "# data/x.csv", frozenset(), frozenset({"x"})),
    ]
    assert symbol_imports(entries) == {
        "VERSION": "from clinic import VERSION",
        "a": "import a",
        "b": "import b",
        "clinic": "import clinic",
        "ids": "from clinic import ids",
        "make_patient_id": "from clinic.ids import make_patient_id",
        "pricing": "import pricing",
        "round_cents": "from pricing import round_cents",
    }
