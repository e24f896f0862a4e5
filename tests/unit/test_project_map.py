"""The project map shows a workspace verbatim, ranked by the task, and never reads outside it."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path

import pytest

from tools import project_map, project_scan
from tools.project_access import record_shape
from tools.project_map import Entry, ProjectMap, _fields_note, build_map
from tools.project_rank import ProjectContext, project_context, rank, render

PRICING = '''"""Money helpers of the shop."""

from decimal import ROUND_HALF_UP, Decimal

VAT_RATE = 0.2
CURRENCY = "EUR"
_cache = {}


def round_cents(amount: float) -> float:
    """Round to whole cents, halves up."""
    return float(Decimal(str(amount)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


class Basket:
    """Items and their prices."""

    def __init__(self) -> None:
        self.items: list[float] = []

    def total(self) -> float:
        return sum(self.items)
'''

ORDERS = """from pricing import VAT_RATE, round_cents


def total_with_vat(net: float) -> float:
    return round_cents(net * (1 + VAT_RATE))


def load_shipping() -> str:
    with open("config/shipping.toml") as handle:
        return handle.read()
"""

SHIPPING = """# Shipping rates by zone, per parcel.
[rates]
eu = 4.50
world = 12.00

[limits]
max_weight_kg = 30
"""


def _table_db(path: Path) -> Path:
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        CREATE TABLE ord_hdr (ord_no INTEGER PRIMARY KEY, cust TEXT, stat_cd TEXT);
        CREATE TABLE ord_ln (ord_no INTEGER, sku TEXT, qty_shipped INTEGER, stat_cd TEXT);
        CREATE TABLE sku_master (sku TEXT PRIMARY KEY, descr TEXT, price REAL);
        CREATE VIEW open_lines AS SELECT * FROM ord_ln WHERE stat_cd != 'CXL';
        """
    )
    conn.executemany(
        "INSERT INTO ord_ln VALUES (?, ?, ?, ?)",
        [(i, f"SKU-{i}", i * 2, "CXL" if i % 3 == 0 else "OK") for i in range(1, 8)],
    )
    conn.executemany("INSERT INTO ord_hdr VALUES (?, ?, ?)", [(1, "ACME", "OK"), (2, "Zed", "CXL")])
    conn.execute("INSERT INTO sku_master VALUES ('SKU-1', 'Widget', 4.5)")
    conn.commit()
    conn.close()
    return path


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    (root / "config").mkdir(parents=True)
    (root / "data").mkdir()
    (root / "docs").mkdir()
    (root / "pricing.py").write_text(PRICING)
    (root / "orders.py").write_text(ORDERS)
    (root / "config" / "shipping.toml").write_text(SHIPPING)
    (root / "config" / "logging.json").write_text(json.dumps({"level": "INFO", "handlers": []}))
    (root / "config" / "app.ini").write_text("[server]\nport = 8080\nhost = localhost\n")
    lines = ["date|sku|qty|price"] + [f"2024013{i}|SKU-{i}|{i}|EUR 4.50" for i in range(1, 10)]
    (root / "data" / "sales.txt").write_text("\n".join(lines) + "\n")
    (root / "data" / "stock.csv").write_text("sku,on_hand\nSKU-1,5\nSKU-2,0\n")
    (root / "docs" / "README.md").write_text("# Shop\n\nA tiny shop.\n\n## Usage\n\nRun it.\n")
    return root


def _entry(project: ProjectMap, path: str, name: str | None = None) -> Entry:
    found = [e for e in project.entries if e.path == path and (name is None or e.name == name)]
    assert found, f"no entry {path}:{name} in {[(e.path, e.name) for e in project.entries]}"
    return found[0]


def _all_text(project: ProjectMap) -> str:
    return "\n".join(e.text for e in project.entries)


# What the map holds --------------------------------------------------------------------------


def test_python_functions_and_classes_are_shown_verbatim_under_their_path(shop: Path) -> None:
    project = build_map(shop)
    helper = _entry(project, "pricing.py", "round_cents")
    assert helper.kind == "python"
    assert helper.text.startswith("# pricing.py\ndef round_cents(amount: float) -> float:\n")
    assert 'quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))' in helper.text
    basket = _entry(project, "pricing.py", "Basket")
    assert "def total(self) -> float:\n        return sum(self.items)" in basket.text
    assert not [e for e in project.entries if e.name in {"total", "__init__"}]  # methods: in class
    constants = _entry(project, "pricing.py", "constants")
    assert constants.text == '# pricing.py\nVAT_RATE = 0.2\nCURRENCY = "EUR"\n_cache = {}'
    assert "import" not in constants.text
    assert constants.defines == {"VAT_RATE", "CURRENCY", "_cache"}
    assert "money" in constants.words  # the module docstring ranks its constants


def test_long_definitions_are_outlined_and_packages_named(tmp_path: Path) -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(60))
    methods = "\n".join(f"    def m{i}(self) -> int:\n        return {i}\n" for i in range(30))
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "long.py").write_text(
        f'@decorate\ndef long_one(a: int) -> int:\n    """Long."""\n{body}\n    return a\n\n\n'
        f'class Many:\n    """Many methods."""\n\n    size = 3\n\n{methods}'
    )
    project = build_map(tmp_path)
    long_one = _entry(project, "pkg/long.py", "long_one")
    assert long_one.text == (
        "# pkg/long.py (module pkg.long)\n"
        '@decorate\ndef long_one(a: int) -> int:\n    """Long."""\n    ...'
    )
    many = _entry(project, "pkg/long.py", "Many")
    assert (
        "    size = 3\n    def m0(self) -> int:\n        ...\n    def m1(self) -> int:" in many.text
    )
    assert "return 0" not in many.text
    assert len(many.text.splitlines()) <= 41


def test_config_files_whole_or_by_section(shop: Path) -> None:
    long_toml = SHIPPING + "".join(
        f"\n[zone_{i}]\nrate = {i}.00\nnote = '{'x' * 80}'\n" for i in range(20)
    )
    (shop / "config" / "zones.toml").write_text(long_toml)
    (shop / "config" / "big.json").write_text(
        json.dumps({"carriers": ["dhl", "ups"] * 150, "currency": "EUR", "api_key": "s3cr3t"})
    )
    (shop / ".env").write_text("DB_PASSWORD=hunter2\nSHOP_NAME=tiny\n")
    project = build_map(shop)
    whole = _entry(project, "config/shipping.toml")
    assert whole.text.startswith("# config/shipping.toml\n" + SHIPPING.rstrip() + "\n")
    assert whole.text.endswith('#   cfg["limits"]["max_weight_kg"] -> 30')  # test_project_access
    app = _entry(project, "config/app.ini").text
    assert "[server]\nport = 8080\nhost = localhost\n# read in Python:" in app
    section = _entry(project, "config/zones.toml", "zone_3")
    assert section.text.startswith("# config/zones.toml, section [zone_3]\n[zone_3]\nrate = 3.00")
    rates = _entry(project, "config/zones.toml", "rates").text
    assert rates.endswith(
        "eu = 4.50\nworld = 12.00\n# read in Python:\n#   import tomllib\n"
        '#   with open("config/zones.toml", "rb") as f: cfg = tomllib.load(f)\n'
        '#   cfg["rates"]["eu"] -> 4.5\n#   cfg["rates"]["world"] -> 12.0'
    )
    currency = _entry(project, "config/big.json", "currency")
    assert currency.text.startswith('# config/big.json, key "currency"\n{\n "currency": "EUR"\n}\n')
    assert currency.text.endswith("#   cfg[\"currency\"] -> 'EUR'")
    assert "api_key" not in _entry(project, "config/big.json", "carriers").text
    assert "s3cr3t" not in _all_text(project) and "hunter2" not in _all_text(project)
    env = _entry(project, ".env")
    assert env.text == '# .env\nDB_PASSWORD="<redacted>"\nSHOP_NAME=tiny'


def test_data_and_docs_show_their_head(shop: Path) -> None:
    (shop / "docs" / "guide.md").write_text(
        "# Guide\n\nIntro.\n\n```sh\n# not a heading\n```\n\n## Returns\n"
        + "\n".join(f"Line {i}." for i in range(40))
        + "\n\n## Formats\n\nPipes.\n"
    )
    project = build_map(shop)
    sales = _entry(project, "data/sales.txt")
    assert sales.kind == "data"
    assert sales.text.splitlines()[0] == (
        "# data/sales.txt (records split by '|' (4 fields), e.g. [0] 20240131 [1] SKU-1 "
        "[2] 1 [3] EUR 4.50; the first 7 of 10 lines)"
    )
    assert sales.text.splitlines()[1:3] == ["date|sku|qty|price", "20240131|SKU-1|1|EUR 4.50"]
    assert len(sales.text.splitlines()) == 8 + 4  # with its reading (test_project_access)
    assert _entry(project, "data/stock.csv").text == (
        "# data/stock.csv (records split by ',' (2 fields), e.g. [0] SKU-1 [1] 5; 3 lines)\n"
        "sku,on_hand\nSKU-1,5\nSKU-2,0\n# read in Python:\n#   import csv\n"
        '#   with open("data/stock.csv", newline="") as f: rows = list(csv.DictReader(f))\n'
        '#   one row (every value a str): row["sku"] -> \'SKU-1\'; int(row["on_hand"]) -> 5'
    )
    readme = _entry(project, "docs/README.md")
    assert readme.kind == "doc" and readme.text.startswith("# docs/README.md\n# Shop\n")
    sections = [e.name for e in project.entries if e.path == "docs/guide.md"]
    assert sections == ["Guide", "Returns", "Formats"]
    returns = _entry(project, "docs/guide.md", "Returns")
    assert returns.text.startswith("# docs/guide.md, section: Returns\n## Returns\nLine 0.")
    assert returns.text.endswith("...") and len(returns.text.splitlines()) == 27


def test_database_tables_show_create_and_sample_rows(tmp_path: Path) -> None:
    db = _table_db(tmp_path / "shop.db")
    project = build_map(None, db)
    assert {e.name for e in project.entries} == {"ord_hdr", "ord_ln", "sku_master", "open_lines"}
    lines = _entry(project, "shop.db", "ord_ln")
    assert lines.kind == "database"
    assert lines.text.splitlines()[:3] == [
        "# shop.db: table ord_ln (it exists in the database: query it)",
        "CREATE TABLE ord_ln (ord_no INTEGER, sku TEXT, qty_shipped INTEGER, stat_cd TEXT)",
        "-- 3 of 7 rows:",
    ]
    assert "(1, 'SKU-1', 2, 'OK')" in lines.text
    view = _entry(project, "shop.db", "open_lines")
    assert view.text.splitlines()[1:4] == [  # its query in comments, not a CREATE to copy
        "-- open_lines(ord_no, sku, qty_shipped, stat_cd): a saved query, defined as",
        "--     SELECT * FROM ord_ln WHERE stat_cd != 'CXL'",
        "-- use it as a table: SELECT ord_no, sku, qty_shipped, stat_cd FROM open_lines",
    ]
    assert "CREATE" not in view.text
    assert project.files == () and project.notes == ()
    with sqlite3.connect(db) as conn:  # read-only: nothing changed
        assert conn.execute("SELECT count(*) FROM ord_ln").fetchone() == (7,)


def test_given_database_outside_the_workspace_is_read_workspace_dbs_too(
    shop: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    given = _table_db(outside / "erp.sqlite")
    inner = sqlite3.connect(shop / "data" / "local.db")
    inner.execute("CREATE TABLE notes (body TEXT)")
    inner.commit()
    inner.close()
    (shop / "broken.db").write_bytes(b"SQLite format 3\x00" + b"\xff" * 200)
    project = build_map(shop, given)
    assert _entry(project, "erp.sqlite", "ord_ln").text.startswith("# erp.sqlite: table ord_ln")
    assert _entry(project, "data/local.db", "notes").text.endswith("-- no rows")
    assert "data/local.db" in project.files
    assert any(n.startswith("broken.db: not a readable SQLite file") for n in project.notes)
    # The given database inside the workspace is mapped once.
    twice = build_map(shop, shop / "data" / "local.db")
    assert [e.name for e in twice.entries if e.kind == "database"] == ["notes"]
    missing = build_map(None, tmp_path / "nope.db")
    assert missing.entries == () and missing.notes == ("nope.db: no such database file",)


def test_a_view_that_never_ends_is_interrupted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = _table_db(tmp_path / "shop.db")
    with sqlite3.connect(db) as conn:
        conn.execute(
            "CREATE VIEW forever AS WITH RECURSIVE c(x) AS "
            "(SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) AS n FROM c"
        )
    conn.close()
    monkeypatch.setattr(project_scan, "_TABLE_TIME_S", 0.1)
    start = time.monotonic()
    project = build_map(None, db)
    assert time.monotonic() - start < 30  # it ends (not a speed target)
    forever = _entry(project, "shop.db", "forever")
    assert forever.text.endswith("-- rows not readable (interrupted)")
    assert "-- 3 of 7 rows:" in _entry(project, "shop.db", "ord_ln").text  # the next tables


def test_corrupt_given_database_is_a_note(tmp_path: Path) -> None:
    bad = tmp_path / "shop.db"
    bad.write_text("not a database at all, just text " * 20)
    project = build_map(None, bad)
    assert project.entries == ()
    assert project.notes == ("shop.db: not a readable SQLite file (file is not a database)",)


def test_python_that_does_not_parse_is_shown_as_text(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("def broken(:\n    pass\n")
    project = build_map(tmp_path)
    entry = _entry(project, "broken.py")
    assert entry.text == "# broken.py (does not parse; 2 lines)\ndef broken(:\n    pass"
    assert project.notes == ("broken.py: does not parse as Python (line 1), shown as text",)


# Ranking and context --------------------------------------------------------------------------


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
    db = _table_db(tmp_path / "shop.db")
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
    db = _table_db(tmp_path / "erp.db")
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


def test_context_is_rendered_best_first_within_budget(shop: Path) -> None:
    task = "Use the project's round_cents helper to price the sales lines in data/sales.txt"
    context = project_context(shop, task)
    assert context.text.startswith("# ")
    assert context.used[0] in {"pricing.py:round_cents", "data/sales.txt:sales.txt"}
    assert "pricing.py:round_cents" in context.used and "data/sales.txt:sales.txt" in context.used
    assert "def round_cents(amount: float) -> float:" in context.text
    assert context.text.splitlines()[-1].startswith("Other files: ")
    for budget in (0, 60, 200, 500, 900, 3500):
        small = project_context(shop, task, budget_chars=budget)
        assert len(small.text) <= budget
    assert project_context(shop, "zzz qqq").text == ""


def test_render_joins_snippets() -> None:
    one = Entry("a.py", "python", "f", "# a.py\ndef f(): ...", frozenset({"f"}))
    two = Entry("b.csv", "data", "b.csv", "# b.csv (1 lines)\nx", frozenset({"x"}))
    assert render([one, two]) == "# a.py\ndef f(): ...\n\n# b.csv (1 lines)\nx"
    assert render([]) == ""


def test_tokens_split_identifiers_and_stem() -> None:
    assert project_map.tokens("qtyShipped ord_ln Shipping RATES rate the a") == [
        "qty", "ship", "ord", "ship", "rat", "rat"
    ]  # fmt: skip
    assert project_map.tokens("prices pricing boxes queries HTTPServer") == [
        "pric", "pric", "box", "query", "http", "server"
    ]  # fmt: skip


# Refusals and bounds --------------------------------------------------------------------------


def test_symlinks_out_of_the_workspace_are_never_read(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret.txt"
    secret.write_text("TOP-SECRET-VALUE\n")
    (outside / "inner.py").write_text("SECRET_CONST = 'TOP-SECRET-VALUE'\n")
    (root / "ok.txt").write_text("visible\n")
    (root / "link.txt").symlink_to(secret)
    (root / "passwd").symlink_to("/etc/passwd")
    (root / "linkdir").symlink_to(outside, target_is_directory=True)
    (root / "inside.txt").symlink_to(root / "ok.txt")
    project = build_map(root)
    assert "TOP-SECRET-VALUE" not in _all_text(project)
    assert "root:" not in _all_text(project)
    assert set(project.files) == {"ok.txt", "inside.txt"}
    assert _entry(project, "inside.txt").text.endswith("visible")
    for name in ("link.txt", "passwd", "linkdir"):
        assert f"{name}: a symlink leading out of the workspace, skipped" in project.notes
    context = project_context(root, "read the secret value from link.txt and linkdir inner.py")
    assert "TOP-SECRET-VALUE" not in context.text


def test_binary_big_undecodable_and_special_files_are_skipped(tmp_path: Path) -> None:
    (tmp_path / "data.bin").write_bytes(b"abc\0def" * 10)
    (tmp_path / "big.csv").write_bytes(b"a,b\n" * 300_000)
    (tmp_path / "latin.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    os.mkfifo(tmp_path / "pipe")  # opening it would block: it must not be opened
    (tmp_path / "ok.csv").write_text("a,b\n1,2\n")
    project = build_map(tmp_path)
    assert [e.path for e in project.entries] == ["ok.csv"]
    assert "data.bin: binary, skipped" in project.notes
    assert "big.csv: 1.2 MB, over the 1 MB limit" in project.notes
    assert "latin.txt: not UTF-8 text, skipped" in project.notes
    assert "pipe: not a regular file, skipped" in project.notes
    assert set(project.files) == {"big.csv", "data.bin", "latin.txt", "ok.csv"}


def test_skipped_directories_and_hidden_files(tmp_path: Path) -> None:
    for skipped in (".git", "node_modules", "__pycache__", ".venv", "build", "dist", ".hidden"):
        (tmp_path / skipped).mkdir()
        (tmp_path / skipped / "mod.py").write_text("def leaked(): ...\n")
    (tmp_path / ".gitignore").write_text("leaked\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "mod.py").write_text("def kept(): ...\n")
    project = build_map(tmp_path)
    assert project.files == ("src/mod.py",)
    assert [e.name for e in project.entries] == ["kept"]


def test_missing_empty_and_file_roots(tmp_path: Path) -> None:
    assert build_map(None) == ProjectMap((), (), ())
    assert build_map(tmp_path) == ProjectMap((), (), ())
    missing = build_map(tmp_path / "nope")
    assert missing.entries == () and missing.notes == (
        f"{tmp_path / 'nope'}: no such workspace directory",
    )
    (tmp_path / "file.py").write_text("x = 1\n")
    assert build_map(tmp_path / "file.py").notes == (f"{tmp_path / 'file.py'}: not a directory",)
    assert project_context(None, "anything") == ProjectContext("", (), ())


def test_five_thousand_files_are_the_bound(tmp_path: Path) -> None:
    """The file count bounds the walk (the time budget is its own test: no timing here, on a
    shared machine)."""
    for d in range(50):
        folder = tmp_path / f"pkg{d:02d}"
        folder.mkdir()
        for f in range(101):
            (folder / f"m{f:03d}.py").write_bytes(b"def f(x):\n    return x + 1\n")
    project = build_map(tmp_path, time_budget_s=600.0)
    assert len(project.files) == 5000 and len(project.entries) == 5000
    assert project.notes == ("5000 files scanned, the rest not listed",)
    assert len(render(project.entries[:3])) < 200


def test_time_and_read_budgets_stop_the_walk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(5):
        (tmp_path / f"f{i}.txt").write_text("x" * 100 + "\n")
    stopped = build_map(tmp_path, time_budget_s=0)
    assert stopped.files == () and stopped.notes == (
        "time budget spent after 0 files, the rest not listed",
    )
    monkeypatch.setattr(project_scan, "MAX_TOTAL_BYTES", 250)
    bounded = build_map(tmp_path)
    assert [e.path for e in bounded.entries] == ["f0.txt", "f1.txt"]
    assert len(bounded.files) == 5 and bounded.notes == (
        "read limit (250 bytes) reached, later files listed only",
    )


def test_data_files_first_in_the_walk_leave_room_for_the_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "bench" / "results").mkdir(parents=True)
    for i in range(4):
        (tmp_path / "bench" / "results" / f"run{i}.json").write_text("[" + "1," * 60 + "1]\n")
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "sandbox.py").write_text("def test_counts(out):\n    return 0, 0\n")
    monkeypatch.setattr(project_scan, "MAX_OTHER_BYTES", 250)
    monkeypatch.setattr(project_scan, "LATER_DIRS", frozenset())  # bench/ first, as sorted
    project = build_map(tmp_path)
    read = {e.path for e in project.entries}
    assert "tools/sandbox.py" in read and "bench/results/run3.json" not in read
    assert len(project.files) == 5
    assert any(n.startswith("read limit of data and docs (250 bytes)") for n in project.notes)


def test_a_projects_own_code_is_walked_before_its_tests_bench_and_docs(tmp_path: Path) -> None:
    for folder in ("bench", "docs", "tests", "tools", "app"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "x.py").write_text("X = 1\n")
    assert build_map(tmp_path).files == (
        "app/x.py",
        "tools/x.py",
        "bench/x.py",
        "docs/x.py",
        "tests/x.py",
    )


def test_notes_are_capped(tmp_path: Path) -> None:
    for i in range(60):
        (tmp_path / f"b{i:02d}.bin").write_bytes(b"\0")
    notes = build_map(tmp_path).notes
    assert len(notes) == 41 and notes[-1] == "20 more notes left out"


def test_map_is_deterministic(shop: Path) -> None:
    assert build_map(shop) == build_map(shop)


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


def test_a_stub_candidate_in_a_project_begins_with_the_imports() -> None:
    from agents.coder import stub_messages
    from agents.examples import entry_point_of

    task = "Write `patient_id(number)`: the patient ID."
    messages = stub_messages(
        task, entry_point_of(task), "# clinic/ids.py ...", "from clinic.ids import make_patient_id"
    )
    assert messages is not None
    assert messages[-1].content == (
        "```python\nfrom clinic.ids import make_patient_id\n\n\ndef patient_id(number):\n"
    )
    bare = stub_messages(task, entry_point_of(task))
    assert bare is not None and bare[-1].content == "```python\ndef patient_id(number):\n"


def test_a_data_file_s_fields_are_named_by_their_separator() -> None:
    """A small model shown a log's head split its `;` lines on commas: the header says how its
    records split, one typical record's fields numbered (the tagged kind most lines have)."""
    log = "# gateway gw-07\nMSR;0800;21.4;house-1\nERR;0805;house-2;sensor timeout\n"
    log += "MSR;0815;-1.5;cold-store\n"
    assert _fields_note(record_shape(log)) == (
        "records split by ';' (4 fields), e.g. [0] MSR [1] 0800 [2] 21.4 [3] house-1; "
    )
    receipt = "RCPT|0012|20240503\nART|TEA-01|450|3\nART|MUG|1290|1\nSUM|3189\n"
    assert _fields_note(record_shape(receipt)) == (
        "records split by '|' (most have 4 fields), e.g. [0] ART [1] TEA-01 [2] 450 [3] 3; "
    )
    assert (
        _fields_note(record_shape("a\tb\n1\t2\n"))
        == "records split by tab (2 fields), e.g. [0] 1 [1] 2; "
    )
    # prose, a single record, or times (``:`` is no separator) say nothing
    assert _fields_note(record_shape("Dear all,\nthe shop opens at nine.\nRegards\n")) == ""
    assert _fields_note(record_shape("MSR;0800;21.4\n")) == ""
    assert _fields_note(record_shape("12:30 start\n13:45 stop\n")) == ""
