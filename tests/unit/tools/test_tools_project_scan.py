"""tools.project_scan: the bounded, read-only walk of a workspace (never outside it: no
symlink out, no hidden or build folders, the project's own code before its tests and data),
its bounds (files, bytes, time, notes), and its databases read read-only under a time limit."""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import time
from pathlib import Path

import pytest

from tests.support.shop_project import all_text, entry_of, table_db
from tools import project_scan
from tools.project_map import ProjectMap, build_map
from tools.project_rank import ProjectContext, project_context, render
from tools.project_scan import Notes, Scan, read_tables, walk, workspace_base


def test_a_view_that_never_ends_is_interrupted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = table_db(tmp_path / "shop.db")
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
    forever = entry_of(project, "shop.db", "forever")
    assert forever.text.endswith("-- rows not readable (interrupted)")
    assert "-- 3 of 7 rows:" in entry_of(project, "shop.db", "ord_ln").text  # the next tables


def test_corrupt_given_database_is_a_note(tmp_path: Path) -> None:
    bad = tmp_path / "shop.db"
    bad.write_text("not a database at all, just text " * 20)
    project = build_map(None, bad)
    assert project.entries == ()
    assert project.notes == ("shop.db: not a readable SQLite file (file is not a database)",)


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
    assert "TOP-SECRET-VALUE" not in all_text(project)
    assert "root:" not in all_text(project)
    assert set(project.files) == {"ok.txt", "inside.txt"}
    assert entry_of(project, "inside.txt").text.endswith("visible")
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
    assert "big.csv (1.2 MB): over the 1 MB limit, skipped" in project.notes
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


def test_what_a_gitignore_names_is_left_out_as_git_leaves_it(tmp_path: Path) -> None:
    files = {
        "app.py": "def kept(): ...\n",
        "run.log": "a log line\n",
        "keep.log": "kept despite *.log\n",
        "gen/out.py": "def generated(): ...\n",
        "src/gen/real.py": "def nested_gen(): ...\n",  # /gen/ is anchored at the root
        "src/tool.py": "def tool(): ...\n",
        "src/secret.py": "def secret(): ...\n",
        "src/egg.egg-info/top_level.txt": "app\n",
        "other/secret.py": "def other_secret(): ...\n",  # src's rule does not reach here
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    (tmp_path / ".gitignore").write_text("# build output\n*.log\n!keep.log\n/gen/\n*.egg-info/\n")
    (tmp_path / "src" / ".gitignore").write_text("secret.py\n")
    project = build_map(tmp_path)
    assert set(project.files) == {
        "app.py",
        "keep.log",
        "src/gen/real.py",
        "src/tool.py",
        "other/secret.py",
    }
    assert project.notes == (
        "left out, as .gitignore says (4 files and folders): gen/, run.log, src/egg.egg-info/"
        " and 1 more",
    )


def test_a_gitignore_that_is_a_symlink_is_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "rules").write_text("*.py\n")
    root = tmp_path / "root"
    root.mkdir()
    (root / "app.py").write_text("def kept(): ...\n")
    (root / ".gitignore").symlink_to(outside / "rules")
    project = build_map(root)
    assert project.files == ("app.py",)
    assert project.notes[0].startswith(".gitignore: not read (")
    assert project.notes[0].endswith("), its rules not applied")


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


def test_files_skipped_for_one_reason_share_a_note(tmp_path: Path) -> None:
    for i in range(60):
        (tmp_path / f"b{i:02d}.bin").write_bytes(b"\0")
    (tmp_path / "big.csv").write_bytes(b"a,b\n" * 300_000)
    (tmp_path / "bigger.csv").write_bytes(b"a,b\n" * 400_000)
    notes = build_map(tmp_path).notes
    assert notes == (
        "binary, skipped (60 files): b00.bin, b01.bin, b02.bin and 57 more",
        "over the 1 MB limit, skipped (2 files): big.csv (1.2 MB), bigger.csv (1.6 MB)",
    )


def test_notes_are_capped(tmp_path: Path) -> None:
    for i in range(60):
        (tmp_path / f"m{i:02d}.py").write_text("def broken(:\n")
    notes = build_map(tmp_path).notes
    assert len(notes) == 41 and notes[-1] == "20 more notes left out"
    assert notes[0] == "m00.py: does not parse as Python (line 1), shown as text"


def test_notes_keep_every_limit_and_count_what_they_drop() -> None:
    notes = Notes()
    for i in range(45):
        notes.add(f"f{i}.py: does not parse as Python")
    notes.skip("x.bin", "binary, skipped")  # a new reason past the cap: counted
    notes.add("5000 files scanned, the rest not listed", limit=True)
    done = notes.done()
    assert done[:40] == tuple(f"f{i}.py: does not parse as Python" for i in range(40))
    assert done[40:] == ("5000 files scanned, the rest not listed", "6 more notes left out")
    assert Notes().done() == ()
    notes = Notes()
    notes.skip("a.bin", "binary, skipped")
    notes.add("a.py: does not parse as Python")
    notes.skip("b.bin", "binary, skipped")  # joins the first note, in its place
    assert notes.done() == (
        "binary, skipped (2 files): a.bin, b.bin",
        "a.py: does not parse as Python",
    )


def test_the_walk_yields_each_text_lists_every_file_and_queues_the_databases(
    tmp_path: Path,
) -> None:
    (tmp_path / "b.txt").write_text("bee\n")
    (tmp_path / "a.py").write_text("A = 1\n")
    (tmp_path / "bom.txt").write_bytes(b"\xef\xbb\xbfhi\n")  # the BOM is not text
    (tmp_path / ".env").write_text("K=v\n")  # the one kind of hidden file read
    (tmp_path / ".hidden").write_text("h\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "c.cfg").write_text("[x]\n")
    db = table_db(tmp_path / "sub" / "shop.db")
    scan = Scan(deadline=time.monotonic() + 600)
    base = workspace_base(tmp_path, scan.notes)
    assert base == os.path.realpath(tmp_path)
    scan.base = base
    assert list(walk(scan)) == [
        (".env", "K=v\n"),
        ("a.py", "A = 1\n"),
        ("b.txt", "bee\n"),
        ("bom.txt", "hi\n"),
        ("sub/c.cfg", "[x]\n"),
    ]
    assert scan.files == [".env", "a.py", "b.txt", "bom.txt", "sub/c.cfg", "sub/shop.db"]
    assert scan.databases == [("sub/shop.db", os.path.realpath(db))]
    assert scan.bytes_read == 4 + 6 + 4 + 6 + 4  # the database is not read as text
    assert scan.other_bytes_read == 4 + 4 + 6  # .env and the .txt files: not source
    assert scan.notes.done() == ()


def test_read_tables_gives_each_table_its_columns_first_rows_and_a_capped_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = table_db(tmp_path / "shop.db")
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    monkeypatch.setattr(project_scan, "COUNT_CAP", 5)
    notes = Notes()
    tables = read_tables("shop.db", str(db), time.monotonic() + 600, notes)
    assert [t.name for t in tables] == ["open_lines", "ord_hdr", "ord_ln", "sku_master"]
    by_name = {t.name: t for t in tables}
    lines = by_name["ord_ln"]
    assert lines.kind == "table" and lines.error is None
    assert lines.sql == (
        "CREATE TABLE ord_ln (ord_no INTEGER, sku TEXT, qty_shipped INTEGER, stat_cd TEXT)"
    )
    assert lines.columns == ("ord_no", "sku", "qty_shipped", "stat_cd")
    assert lines.rows == ((1, "SKU-1", 2, "OK"), (2, "SKU-2", 4, "OK"), (3, "SKU-3", 6, "CXL"))
    assert lines.total == 6  # 7 rows, counted up to COUNT_CAP + 1: "more than 5"
    view = by_name["open_lines"]
    assert view.kind == "view" and view.total == 5 and len(view.rows) == 3
    assert by_name["ord_hdr"].total == 2 and by_name["sku_master"].rows == (
        ("SKU-1", "Widget", 4.5),
    )
    assert notes.done() == ()
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before  # read-only


def test_a_table_that_cannot_be_read_keeps_its_error_and_the_others_are_read(
    tmp_path: Path,
) -> None:
    db = table_db(tmp_path / "shop.db")
    with contextlib.closing(sqlite3.connect(db)) as conn:
        conn.execute("CREATE VIEW headers AS SELECT * FROM ord_hdr")
        conn.execute("DROP TABLE ord_hdr")
        conn.commit()
    notes = Notes()
    tables = {t.name: t for t in read_tables("shop.db", str(db), time.monotonic() + 600, notes)}
    broken = tables["headers"]
    assert broken.rows == () and broken.total == 0 and broken.columns == ()
    assert broken.error is not None and "no such table" in broken.error
    assert tables["ord_ln"].error is None and tables["ord_ln"].total == 7
    assert notes.done() == ()


def test_no_database_is_read_once_the_time_budget_is_spent(tmp_path: Path) -> None:
    db = table_db(tmp_path / "shop.db")
    notes = Notes()
    assert read_tables("shop.db", str(db), time.monotonic() - 1, notes) == []
    assert notes.done() == ("shop.db: not read, the time budget is spent",)
