"""Read-only SQL over SQLite for the researcher agent.

Defence in depth, each layer on its own enough to stop a write:

* the file is opened with ``mode=ro`` (SQLite refuses every write to it);
* ``PRAGMA query_only`` is switched on before the caller's query runs;
* an authorizer allows only reads, ``SELECT``, recursive CTEs, plain functions (never
  ``load_extension``) and a short list of pragmas in their read-only form, so writes,
  DDL, transactions, ``ATTACH``/``DETACH`` and state-changing pragmas fail at prepare
  time;
* ``SQLITE_LIMIT_ATTACHED`` is 0 and extension loading stays disabled;
* Python's ``execute`` rejects more than one statement, so nothing can be stacked.

A progress handler interrupts a query that runs past its time budget, rows are fetched
at most ``max_rows + 1`` at a time and long cells are truncated.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "ColumnInfo",
    "SchemaResult",
    "SqlError",
    "SqlQueryArgs",
    "SqlResult",
    "SqlSchemaArgs",
    "TableInfo",
    "list_schema",
    "run_query",
]

Cell = int | float | str | None
SqlErrorKind = Literal["denied", "timeout", "multiple_statements", "invalid_query", "no_database"]

MAX_ROWS_LIMIT = 1000
_MAX_CELL_CHARS = 1000
_PROGRESS_STEPS = 1000
_READ_ONLY_PRAGMAS = frozenset(
    {
        "table_info",
        "table_xinfo",
        "table_list",
        "index_list",
        "index_info",
        "index_xinfo",
        "foreign_key_list",
        "collation_list",
        "function_list",
    }
)
_ALLOWED_ACTIONS = frozenset({sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_RECURSIVE})


class SqlError(Exception):
    """A query was refused, interrupted or invalid; ``kind`` says which."""

    def __init__(self, kind: SqlErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind: SqlErrorKind = kind


class SqlQueryArgs(BaseModel):
    """Arguments of the ``sql_query`` tool."""

    model_config = ConfigDict(extra="forbid")

    query: str = Field(
        min_length=1, max_length=8000, description="One read-only SQLite SELECT statement."
    )
    max_rows: int = Field(default=100, ge=1, le=MAX_ROWS_LIMIT, description="Most rows to return.")


class SqlSchemaArgs(BaseModel):
    """Arguments of the ``sql_schema`` tool (none)."""

    model_config = ConfigDict(extra="forbid")


class SqlResult(BaseModel):
    """Rows of one query, with column names; ``truncated`` if more rows existed."""

    columns: list[str]
    rows: list[list[Cell]]
    row_count: int
    truncated: bool
    elapsed_s: float


class ColumnInfo(BaseModel):
    """One column of a table or view."""

    name: str
    type: str
    not_null: bool
    primary_key: bool


class TableInfo(BaseModel):
    """One table or view and its columns."""

    name: str
    kind: Literal["table", "view"]
    columns: list[ColumnInfo]


class SchemaResult(BaseModel):
    """Every user table and view in the database."""

    tables: list[TableInfo]


def run_query(
    db_path: Path, query: str, max_rows: int = 100, *, timeout_s: float = 2.0
) -> SqlResult:
    """Run one read-only ``query`` and return at most ``max_rows`` rows.

    Raises:
        SqlError: the query was denied, interrupted, malformed or stacked.
    """
    max_rows = max(1, min(max_rows, MAX_ROWS_LIMIT))
    start = time.monotonic()
    with _connect(db_path) as conn:
        _install_guards(conn, start + timeout_s)
        with _translate_errors(), contextlib.closing(conn.execute(query)) as cur:
            columns = [d[0] for d in cur.description or ()]
            fetched = cur.fetchmany(max_rows + 1)
    rows = [[_cell(v) for v in row] for row in fetched[:max_rows]]
    return SqlResult(
        columns=columns,
        rows=rows,
        row_count=len(rows),
        truncated=len(fetched) > max_rows,
        elapsed_s=round(time.monotonic() - start, 4),
    )


def list_schema(db_path: Path) -> SchemaResult:
    """List the user tables and views with their columns."""
    with _connect(db_path) as conn:
        # Only our own constant queries run here; SQLite's pragma_table_info reports an
        # internal schema update to the authorizer, so it is left out (mode=ro remains).
        _install_guards(conn, time.monotonic() + 5.0, authorize=False)
        with _translate_errors():
            objects = conn.execute(
                "SELECT name, type FROM sqlite_schema WHERE type IN ('table', 'view') "
                "AND name NOT LIKE 'sqlite_%' ORDER BY name"
            ).fetchall()
            tables = [
                TableInfo(name=name, kind=kind, columns=_columns(conn, name))
                for name, kind in objects
            ]
    return SchemaResult(tables=tables)


def _columns(conn: sqlite3.Connection, table: str) -> list[ColumnInfo]:
    rows = conn.execute(
        'SELECT name, type, "notnull", pk FROM pragma_table_info(?) ORDER BY cid', (table,)
    ).fetchall()
    return [
        ColumnInfo(name=n, type=t or "", not_null=bool(nn), primary_key=bool(pk))
        for n, t, nn, pk in rows
    ]


@contextlib.contextmanager
def _connect(db_path: Path) -> Iterator[sqlite3.Connection]:
    path = Path(db_path).resolve()
    if not path.is_file():
        raise SqlError("no_database", f"database not found: {path.name}")
    # mode=ro also keeps SQLite from creating the file if it vanished in between.
    conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, isolation_level=None)
    try:
        yield conn
    finally:
        conn.close()


def _install_guards(conn: sqlite3.Connection, deadline: float, *, authorize: bool = True) -> None:
    conn.execute("PRAGMA query_only = ON")
    conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
    conn.setlimit(sqlite3.SQLITE_LIMIT_SQL_LENGTH, 100_000)
    conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, 10_000_000)
    if authorize:
        conn.set_authorizer(_authorize)

    def progress() -> int:
        # A non-zero return makes SQLite abort the statement with "interrupted".
        return 1 if time.monotonic() > deadline else 0

    conn.set_progress_handler(progress, _PROGRESS_STEPS)


def _authorize(
    action: int, arg1: str | None, arg2: str | None, _db: str | None, _src: str | None
) -> int:
    """SQLite authorizer callback: allow reads only."""
    if action in _ALLOWED_ACTIONS:
        return sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_FUNCTION:
        return sqlite3.SQLITE_DENY if arg2 == "load_extension" else sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_PRAGMA:
        # Only introspection pragmas, whose argument (arg2) names a table or index and
        # which cannot change state whatever it is; every setting pragma is refused.
        introspection = (arg1 or "").lower() in _READ_ONLY_PRAGMAS
        return sqlite3.SQLITE_OK if introspection else sqlite3.SQLITE_DENY
    return sqlite3.SQLITE_DENY


@contextlib.contextmanager
def _translate_errors() -> Iterator[None]:
    try:
        yield
    except sqlite3.ProgrammingError as exc:
        if "one statement" in str(exc):
            raise SqlError("multiple_statements", "only one statement is allowed") from exc
        raise SqlError("invalid_query", str(exc)) from exc
    except sqlite3.Error as exc:
        raise _classify(exc) from exc


def _classify(exc: sqlite3.Error) -> SqlError:
    text = str(exc)
    if "interrupted" in text:
        return SqlError("timeout", "query took too long and was interrupted")
    if "authoriz" in text or "readonly" in text or "read-only" in text:
        return SqlError("denied", f"only read-only queries are allowed ({text})")
    return SqlError("invalid_query", text)


def _cell(value: object) -> Cell:
    if isinstance(value, bytes):
        return f"<blob {len(value)} bytes>"
    if isinstance(value, str) and len(value) > _MAX_CELL_CHARS:
        return value[:_MAX_CELL_CHARS] + "...[truncated]"
    if value is None or isinstance(value, int | float | str):
        return value
    return str(value)
