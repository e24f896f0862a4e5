"""tools.project_map: a workspace shown verbatim (definitions, configs, data files, docs, database
tables), each snippet under its path and with how Python reads it.

Ranking the entries for a task: tests/unit/tools/test_tools_project_rank.py; the bounded
walk that reads the workspace: tests/unit/tools/test_tools_project_scan.py.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.support.shop_project import SHIPPING, all_text, entry_of, table_db, write_shop
from tools import project_map
from tools.project_access import record_shape
from tools.project_map import _fields_note, build_map


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    return write_shop(tmp_path / "shop")


# What the map holds --------------------------------------------------------------------------


def test_python_functions_and_classes_are_shown_verbatim_under_their_path(shop: Path) -> None:
    project = build_map(shop)
    helper = entry_of(project, "pricing.py", "round_cents")
    assert helper.kind == "python"
    assert helper.text.startswith("# pricing.py\ndef round_cents(amount: float) -> float:\n")
    assert 'quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))' in helper.text
    basket = entry_of(project, "pricing.py", "Basket")
    assert "def total(self) -> float:\n        return sum(self.items)" in basket.text
    assert not [e for e in project.entries if e.name in {"total", "__init__"}]  # methods: in class
    constants = entry_of(project, "pricing.py", "constants")
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
    long_one = entry_of(project, "pkg/long.py", "long_one")
    assert long_one.text == (
        "# pkg/long.py (module pkg.long)\n"
        '@decorate\ndef long_one(a: int) -> int:\n    """Long."""\n    ...'
    )
    many = entry_of(project, "pkg/long.py", "Many")
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
    whole = entry_of(project, "config/shipping.toml")
    assert whole.text.startswith("# config/shipping.toml\n" + SHIPPING.rstrip() + "\n")
    assert whole.text.endswith('#   cfg["limits"]["max_weight_kg"] -> 30')  # see project_access
    app = entry_of(project, "config/app.ini").text
    assert "[server]\nport = 8080\nhost = localhost\n# read in Python:" in app
    section = entry_of(project, "config/zones.toml", "zone_3")
    assert section.text.startswith("# config/zones.toml, section [zone_3]\n[zone_3]\nrate = 3.00")
    rates = entry_of(project, "config/zones.toml", "rates").text
    assert rates.endswith(
        "eu = 4.50\nworld = 12.00\n# read in Python:\n#   import tomllib\n"
        '#   with open("config/zones.toml", "rb") as f: cfg = tomllib.load(f)\n'
        '#   cfg["rates"]["eu"] -> 4.5\n#   cfg["rates"]["world"] -> 12.0'
    )
    currency = entry_of(project, "config/big.json", "currency")
    assert currency.text.startswith('# config/big.json, key "currency"\n{\n "currency": "EUR"\n}\n')
    assert currency.text.endswith("#   cfg[\"currency\"] -> 'EUR'")
    assert "api_key" not in entry_of(project, "config/big.json", "carriers").text
    assert "s3cr3t" not in all_text(project) and "hunter2" not in all_text(project)
    env = entry_of(project, ".env")
    assert env.text == '# .env\nDB_PASSWORD="<redacted>"\nSHOP_NAME=tiny'


def test_data_and_docs_show_their_head(shop: Path) -> None:
    (shop / "docs" / "guide.md").write_text(
        "# Guide\n\nIntro.\n\n```sh\n# not a heading\n```\n\n## Returns\n"
        + "\n".join(f"Line {i}." for i in range(40))
        + "\n\n## Formats\n\nPipes.\n"
    )
    project = build_map(shop)
    sales = entry_of(project, "data/sales.txt")
    assert sales.kind == "data"
    assert sales.text.splitlines()[0] == (
        "# data/sales.txt (records split by '|' (4 fields), e.g. [0] 20240131 [1] SKU-1 "
        "[2] 1 [3] EUR 4.50; the first 7 of 10 lines)"
    )
    assert sales.text.splitlines()[1:3] == ["date|sku|qty|price", "20240131|SKU-1|1|EUR 4.50"]
    assert len(sales.text.splitlines()) == 8 + 4  # with its reading (test_tools_project_access)
    assert entry_of(project, "data/stock.csv").text == (
        "# data/stock.csv (records split by ',' (2 fields), e.g. [0] SKU-1 [1] 5; 3 lines)\n"
        "sku,on_hand\nSKU-1,5\nSKU-2,0\n# read in Python:\n#   import csv\n"
        '#   with open("data/stock.csv", newline="") as f: rows = list(csv.DictReader(f))\n'
        '#   one row (every value a str): row["sku"] -> \'SKU-1\'; int(row["on_hand"]) -> 5'
    )
    readme = entry_of(project, "docs/README.md")
    assert readme.kind == "doc" and readme.text.startswith("# docs/README.md\n# Shop\n")
    sections = [e.name for e in project.entries if e.path == "docs/guide.md"]
    assert sections == ["Guide", "Returns", "Formats"]
    returns = entry_of(project, "docs/guide.md", "Returns")
    assert returns.text.startswith("# docs/guide.md, section: Returns\n## Returns\nLine 0.")
    assert returns.text.endswith("...") and len(returns.text.splitlines()) == 27


def test_database_tables_show_create_and_sample_rows(tmp_path: Path) -> None:
    db = table_db(tmp_path / "shop.db")
    project = build_map(None, db)
    assert {e.name for e in project.entries} == {"ord_hdr", "ord_ln", "sku_master", "open_lines"}
    lines = entry_of(project, "shop.db", "ord_ln")
    assert lines.kind == "database"
    assert lines.text.splitlines()[:3] == [
        "# shop.db: table ord_ln (it exists in the database: query it)",
        "CREATE TABLE ord_ln (ord_no INTEGER, sku TEXT, qty_shipped INTEGER, stat_cd TEXT)",
        "-- 3 of 7 rows:",
    ]
    assert "(1, 'SKU-1', 2, 'OK')" in lines.text
    view = entry_of(project, "shop.db", "open_lines")
    assert view.text.splitlines()[1:4] == [  # its query in comments, not a CREATE to copy
        "-- open_lines(ord_no, sku, qty_shipped, stat_cd): a saved query, defined as",
        "--     SELECT * FROM ord_ln WHERE stat_cd != 'CXL'",
        "-- use it as a table: SELECT ord_no, sku, qty_shipped, stat_cd FROM open_lines",
    ]
    assert "CREATE" not in view.text
    assert project.files == () and project.notes == ()
    with sqlite3.connect(db) as conn:  # read-only: nothing changed
        assert conn.execute("SELECT count(*) FROM ord_ln").fetchone() == (7,)


def test_a_code_column_shows_every_value_it_holds(tmp_path: Path) -> None:
    db = table_db(tmp_path / "shop.db")
    project = build_map(None, db)
    lines = entry_of(project, "shop.db", "ord_ln")
    # 'CXL' is in the third sample row only by chance; the task says "cancelled"
    assert lines.text.splitlines()[-1] == "-- stat_cd is one of: 'CXL', 'OK'"
    # sku names the key of sku_master; ord_hdr's two statuses never repeat: no code shown
    assert "sku is one of" not in lines.text
    assert "is one of" not in entry_of(project, "shop.db", "ord_hdr").text
    assert "is one of" not in entry_of(project, "shop.db", "open_lines").text  # views: not run


def test_names_free_text_and_many_values_are_no_code(tmp_path: Path) -> None:
    db = tmp_path / "visits.db"
    with sqlite3.connect(db) as conn:
        conn.execute(
            "CREATE TABLE visit (id INTEGER, who TEXT, dr TEXT, room TEXT, st TEXT, ymd TEXT)"
        )
        conn.executemany(
            "INSERT INTO visit VALUES (?, ?, ?, ?, ?, ?)",
            [
                (
                    i,
                    "Ada Lovelace" if i % 2 else "Bo Li",
                    f"D{i % 7}",
                    f"R{i}",
                    "NSH" if i % 4 else "CMP",
                    f"2024010{i % 3}",
                )
                for i in range(40)
            ],
        )
    text = entry_of(build_map(None, db), "visits.db", "visit").text
    assert text.splitlines()[-1] == "-- st is one of: 'CMP', 'NSH'"
    assert "who is one of" not in text  # names have spaces: never a code
    assert "dr is one of" not in text  # 7 values: more than a status has
    assert "room is one of" not in text  # every value once: a key, not a code
    assert "ymd is one of" not in text  # three dates kept as text: no letter, no code


def test_given_database_outside_the_workspace_is_read_workspace_dbs_too(
    shop: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    given = table_db(outside / "erp.sqlite")
    inner = sqlite3.connect(shop / "data" / "local.db")
    inner.execute("CREATE TABLE notes (body TEXT)")
    inner.commit()
    inner.close()
    (shop / "broken.db").write_bytes(b"SQLite format 3\x00" + b"\xff" * 200)
    project = build_map(shop, given)
    assert entry_of(project, "erp.sqlite", "ord_ln").text.startswith("# erp.sqlite: table ord_ln")
    assert entry_of(project, "data/local.db", "notes").text.endswith("-- no rows")
    assert "data/local.db" in project.files
    assert any(n.startswith("broken.db: not a readable SQLite file") for n in project.notes)
    # The given database inside the workspace is mapped once.
    twice = build_map(shop, shop / "data" / "local.db")
    assert [e.name for e in twice.entries if e.kind == "database"] == ["notes"]
    missing = build_map(None, tmp_path / "nope.db")
    assert missing.entries == () and missing.notes == ("nope.db: no such database file",)


def test_python_that_does_not_parse_is_shown_as_text(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("def broken(:\n    pass\n")
    project = build_map(tmp_path)
    entry = entry_of(project, "broken.py")
    assert entry.text == "# broken.py (does not parse; 2 lines)\ndef broken(:\n    pass"
    assert project.notes == ("broken.py: does not parse as Python (line 1), shown as text",)


def test_tokens_split_identifiers_and_stem() -> None:
    assert project_map.tokens("qtyShipped ord_ln Shipping RATES rate the a") == [
        "qty", "ship", "ord", "ship", "rat", "rat"
    ]  # fmt: skip
    assert project_map.tokens("prices pricing boxes queries HTTPServer") == [
        "pric", "pric", "box", "query", "http", "server"
    ]  # fmt: skip


def test_map_is_deterministic(shop: Path) -> None:
    assert build_map(shop) == build_map(shop)


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
