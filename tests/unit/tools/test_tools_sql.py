"""Read-only SQL: normal queries work; writes, ATTACH, pragmas, stacking and runaways don't."""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

import pytest

from tools.sample_db import create_sample_db
from tools.sql import SqlError, list_schema, run_query


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return create_sample_db(tmp_path / "shop.db")


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def assert_denied_untouched(db: Path, query: str, kind: str = "denied") -> None:
    """``query`` is refused as ``kind`` and the database file is byte for byte the same."""
    before = _digest(db)
    with pytest.raises(SqlError) as info:
        run_query(db, query)
    assert info.value.kind == kind
    assert _digest(db) == before


def test_normal_query_returns_rows_with_columns(db: Path) -> None:
    result = run_query(
        db,
        "SELECT a.name, COUNT(*) AS books FROM books b JOIN authors a ON a.id = b.author_id "
        "GROUP BY a.id ORDER BY books DESC, a.name LIMIT 2",
    )
    assert result.columns == ["name", "books"]
    assert result.rows == [["Ursula K. Le Guin", 4], ["Chimamanda Ngozi Adichie", 2]]
    assert result.row_count == 2
    assert not result.truncated


def test_rows_are_capped(db: Path) -> None:
    result = run_query(db, "SELECT id FROM books ORDER BY id", max_rows=5)
    assert result.rows == [[1], [2], [3], [4], [5]]
    assert result.truncated


def test_cells_are_json_friendly(db: Path) -> None:
    result = run_query(db, "SELECT zeroblob(4), 1.5, NULL, printf('%.2000c', 'x')")
    blob, number, null, long_text = result.rows[0]
    assert blob == "<blob 4 bytes>"
    assert number == 1.5
    assert null is None
    assert isinstance(long_text, str) and long_text.endswith("[truncated]")


def test_view_and_introspection_pragma_allowed(db: Path) -> None:
    sales = run_query(db, "SELECT title, copies FROM book_sales ORDER BY copies DESC LIMIT 1")
    assert sales.columns == ["title", "copies"]
    info = run_query(db, "PRAGMA table_info(books)")
    assert [row[1] for row in info.rows][:2] == ["id", "title"]


@pytest.mark.parametrize(
    "query",
    [
        "INSERT INTO authors VALUES (99, 'x', 'y', 1)",
        "UPDATE books SET price_cents = 0",
        "DELETE FROM orders",
        "REPLACE INTO authors VALUES (1, 'a', 'b', 2)",
        "DROP TABLE books",
        "CREATE TABLE evil (a)",
        "CREATE TEMP TABLE evil (a)",
        "ALTER TABLE books ADD COLUMN evil",
        "CREATE INDEX evil ON books(title)",
        "BEGIN",
        "SAVEPOINT s",
        "VACUUM",
        "ANALYZE",
        "REINDEX",
        "SELECT load_extension('/tmp/evil.so')",
    ],
)
def test_writes_and_ddl_are_denied(db: Path, query: str) -> None:
    assert_denied_untouched(db, query)


@pytest.mark.parametrize(
    "query",
    [
        "ATTACH DATABASE '{other}' AS o",
        "ATTACH DATABASE ':memory:' AS m",
        "DETACH DATABASE main",
    ],
)
def test_attach_is_denied(db: Path, tmp_path: Path, query: str) -> None:
    other = tmp_path / "other.db"
    with pytest.raises(SqlError) as info:
        run_query(db, query.format(other=other))
    assert info.value.kind == "denied"
    assert not other.exists()


@pytest.mark.parametrize(
    "query",
    [
        "PRAGMA journal_mode = WAL",
        "PRAGMA query_only = 0",
        "PRAGMA writable_schema = 1",
        "PRAGMA user_version = 7",
        "PRAGMA foreign_keys = OFF",
        "PRAGMA wal_checkpoint",
        "PRAGMA optimize",
        "PRAGMA schema_version = 1",
    ],
)
def test_state_changing_pragmas_are_denied(db: Path, query: str) -> None:
    assert_denied_untouched(db, query)


@pytest.mark.parametrize(
    "query",
    [
        "SELECT 1; DELETE FROM books",
        "SELECT 1; ATTACH DATABASE ':memory:' AS m",
        "SELECT 1 -- comment\n; DROP TABLE books",
    ],
)
def test_stacked_statements_are_refused(db: Path, query: str) -> None:
    assert_denied_untouched(db, query, "multiple_statements")
    assert run_query(db, "SELECT COUNT(*) FROM books").rows == [[14]]


def test_runaway_query_is_interrupted(db: Path) -> None:
    started = time.monotonic()
    with pytest.raises(SqlError) as info:
        run_query(
            db,
            "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "
            "SELECT COUNT(*) FROM r",
            timeout_s=0.3,
        )
    assert info.value.kind == "timeout"
    assert time.monotonic() - started < 3


def test_invalid_sql_and_missing_db(db: Path, tmp_path: Path) -> None:
    with pytest.raises(SqlError) as info:
        run_query(db, "SELECT * FROM no_such_table")
    assert info.value.kind == "invalid_query"
    missing = tmp_path / "missing.db"
    with pytest.raises(SqlError) as info:
        run_query(missing, "SELECT 1")
    assert info.value.kind == "no_database"
    assert not missing.exists()


def test_schema_lists_tables_and_columns(db: Path) -> None:
    schema = list_schema(db)
    names = {t.name: t for t in schema.tables}
    assert set(names) == {"authors", "books", "book_sales", "customers", "orders", "order_items"}
    assert names["book_sales"].kind == "view"
    books = names["books"]
    assert [c.name for c in books.columns] == [
        "id", "title", "author_id", "genre", "year", "price_cents",
    ]  # fmt: skip
    assert books.columns[0].primary_key
    assert books.columns[1].not_null and books.columns[1].type == "TEXT"
