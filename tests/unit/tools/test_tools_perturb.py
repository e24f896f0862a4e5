"""Altered copies of the project's data files (:mod:`tools.perturb`) and the probes on them."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from agents.examples import entry_point_of
from agents.probes import file_probes, observation
from graphs.coding import _probes
from tools.check_runner import Check, run_checks
from tools.perturb import MAX_PROBE_FILE_BYTES, altered, probe_path
from tools.project_files import ProjectFiles


def _shop(path: Path) -> Path:
    with sqlite3.connect(path) as conn:
        conn.executescript(
            """
            CREATE TABLE cst (cst_id INTEGER PRIMARY KEY, cst_nm TEXT UNIQUE, city TEXT);
            CREATE TABLE ord_hdr (ord_no INTEGER PRIMARY KEY,
                                  cst_id INTEGER REFERENCES cst(cst_id), qty INTEGER);
            """
        )
        conn.executemany(
            "INSERT INTO cst VALUES (?, ?, ?)",
            [(i, f"name {i}", f"city {i % 3}") for i in range(1, 21)],
        )
        conn.executemany(
            "INSERT INTO ord_hdr VALUES (?, ?, ?)",
            [(1000 + i, 1 + i % 20, i) for i in range(40)],
        )
    return path


def _rows(data: bytes, tmp: Path, query: str) -> list[tuple[object, ...]]:
    path = tmp / "read.db"
    path.write_bytes(data)
    with sqlite3.connect(path) as conn:
        rows = conn.execute(query).fetchall()
    path.unlink()
    return rows


def test_a_database_copy_moves_values_but_keeps_keys_schema_and_rows(tmp_path: Path) -> None:
    data = _shop(tmp_path / "shop.db").read_bytes()
    copy = altered("shop.db", data, 1)
    assert copy is not None and copy == altered("shop.db", data, 1)  # deterministic
    assert copy != altered("shop.db", data, 2)
    keys = "SELECT ord_no, cst_id FROM ord_hdr ORDER BY ord_no"
    assert _rows(copy, tmp_path, keys) == _rows(data, tmp_path, keys)  # how tables join stays
    qty = "SELECT ord_no, qty FROM ord_hdr ORDER BY ord_no"
    assert _rows(copy, tmp_path, qty) != _rows(data, tmp_path, qty)  # which row holds what
    names = "SELECT cst_nm FROM cst ORDER BY cst_nm"
    assert _rows(copy, tmp_path, names) == _rows(data, tmp_path, names)  # the same values
    schema = "SELECT sql FROM sqlite_master ORDER BY name"
    assert _rows(copy, tmp_path, schema) == _rows(data, tmp_path, schema)
    last = altered("shop.db", data, 3)  # its numbers also scaled: a sum ranks apart from a count
    assert last is not None
    total = "SELECT count(*), sum(qty) FROM ord_hdr"
    assert _rows(last, tmp_path, total)[0][0] == 40
    assert _rows(last, tmp_path, total) != _rows(data, tmp_path, total)
    assert _rows(last, tmp_path, keys) == _rows(data, tmp_path, keys)


def test_a_log_copy_keeps_its_comment_head_and_moves_the_records() -> None:
    log = "# gateway 7\n# day 2024-03-12\n" + "".join(f"MSR;{i:04d};{i}.5\n" for i in range(9))
    data = log.encode()
    copies = [altered("data/gw.log", data, n) for n in (1, 2, 3)]
    for copy in copies:
        assert copy is not None and copy.startswith(b"# gateway 7\n# day 2024-03-12\nMSR;")
    assert copies[0] == "".join(log.splitlines(keepends=True)[:2]).encode() + b"".join(
        data.splitlines(keepends=True)[2::2]
    )
    assert copies[1] is not None and copies[1].endswith(b"MSR;0000;0.5\n")  # reversed
    assert copies[2] is not None and copies[2].count(b"\n") == 2 + 6  # a third dropped
    csv = b"sku,qty\nA,1\nB,2\nC,3\nD,4\n"
    first = altered("stock.csv", csv, 2)
    assert first is not None and first.startswith(b"sku,qty\nD,4\n")  # the header stays


def test_no_copy_of_what_moving_lines_about_would_break() -> None:
    assert altered("settings.json", b'{\n"a": 1,\n"b": 2,\n"c": 3\n}\n', 1) is None
    assert altered("pricing.py", b"A = 1\nB = 2\nC = 3\nD = 4\n", 1) is None
    assert altered("short.log", b"one\ntwo\n", 1) is None  # too few records to move
    assert altered("big.log", b"x\n" * (MAX_PROBE_FILE_BYTES // 2 + 1), 1) is None
    assert altered("bad.db", b"SQLite format 3\x00" + b"\xff" * 300, 1) is None


def test_file_probes_call_the_checks_on_the_copies_and_leave_other_calls() -> None:
    checks = [
        Check(call='count_loans("logs/a.log")', expected="5", source="statement"),
        Check(call='count_loans("logs/a.log", strict=True)', expected="4", source="writer"),
        Check(call='count_loans("nope.log")', expected="0", source="writer"),
    ]
    calls, named = file_probes(checks, lambda text: text == "logs/a.log", copies=2)
    assert named == ["logs/a.log"]
    assert [c.call for c in calls] == [
        "count_loans('_probe1/logs/a.log')",
        "count_loans('_probe2/logs/a.log')",
        "count_loans('_probe1/logs/a.log', strict=True)",
        "count_loans('_probe2/logs/a.log', strict=True)",
    ]
    assert probe_path("./logs/a.log", 3) == "_probe3/logs/a.log"
    # the database check of a function of the database alone: its call, not the comparison
    project = [
        Check(call="best_selling_title('shop.db') is not None", expected="True", source="project")
    ]
    calls, named = file_probes(project, lambda text: text == "shop.db", copies=1)
    assert [c.call for c in calls] == ["best_selling_title('_probe1/shop.db')"]


def test_probes_on_altered_data_tell_a_right_query_from_a_hard_coded_one(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    _shop(root / "shop.db")
    task = "Write `customer_name(db_path, order_no)`: the name of the order's customer."
    entry = entry_point_of(task)
    checks = [Check(call='customer_name("shop.db", 1005)', expected="'name 6'", source="statement")]
    project = ProjectFiles.scan(root)
    probed, made = _probes(checks, project)
    assert sorted(made) == [probe_path("shop.db", n) for n in (1, 2, 3)]
    assert [c.call for c in probed[:3]] == [
        f"customer_name({probe_path('shop.db', n)!r}, 1005)" for n in (1, 2, 3)
    ]
    assert all("'bd.pohs'" not in c.call for c in probed)  # no reversed path: it names nothing
    right = (
        "import sqlite3\n\n\ndef customer_name(db_path, order_no):\n"
        "    with sqlite3.connect(db_path) as conn:\n"
        "        return conn.execute('SELECT c.cst_nm FROM ord_hdr h JOIN cst c"
        " ON c.cst_id = h.cst_id WHERE h.ord_no = ?', (order_no,)).fetchone()[0]\n"
    )
    remembered = "def customer_name(db_path, order_no):\n    return 'name 6'\n"
    seen = []
    for code in (right, remembered):
        run = run_checks(
            code, probed[:3], entry, timeout_s=10, project={**project.for_code(code), **made}
        )
        seen.append([observation(v.got, v.error) for v in run.verdicts])
    assert seen[0] != seen[1]
    assert len(set(seen[0])) > 1  # the altered copies answer differently
