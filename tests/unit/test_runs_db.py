"""app.runs_db: the database that keeps durable runs. The checkpoint serializer revives the
state's own types only (and those stored under a module that held them before); a SQLite
file that cannot be used is told apart (a full disk, a lock, a permission, a broken file);
an old runs table gets the later columns; a locked transaction commits whole or not at all.

Runs themselves (create, list, claim, resume), on SQLite and PostgreSQL, are tested in
test_runs.py and test_runs_postgres.py.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import sqlite3
from pathlib import Path

import pytest
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from psycopg.rows import dict_row

from agents.schemas import StageSummary
from app.runs_db import (
    CONNECT_TIMEOUT_S,
    RunsDatabaseError,
    SqliteRuns,
    open_database,
    postgres_connection,
    serializer,
)
from runtime.settings import PostgresURL
from tools.check_runner import Check
from tools.evidence import Evidence


@dataclasses.dataclass
class Stranger:
    """A type the state never holds."""

    x: int


def test_the_serializer_revives_the_states_own_types_and_nothing_else() -> None:
    serde = serializer()
    check = Check("f(1)", "1", "writer", setup=("x = 1",))
    back = serde.loads_typed(serde.dumps_typed(check))
    assert type(back) is Check and back.key() == check.key()
    evidence = Evidence("bandit", "B307 medium severity", True)
    assert serde.loads_typed(serde.dumps_typed(evidence)) == evidence
    summary = StageSummary(summary="adds", key_points=["ints"])
    assert serde.loads_typed(serde.dumps_typed(summary)) == summary
    assert serde.loads_typed(serde.dumps_typed(Stranger(1))) == {"x": 1}  # data, not the type


def test_a_check_stored_under_its_old_module_still_revives(monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as patch:
        patch.setattr(Check, "__module__", "agents.examples")  # as runs stored it before
        stored = serializer().dumps_typed(Check("f(2)", "2", "statement"))
    assert b"agents.examples" in stored[1]
    revived = serializer().loads_typed(stored)
    assert type(revived) is Check and revived.label() == "f(2) == 2"
    # the alias is what revives it: without it the check comes back as a plain dict
    plain = JsonPlusSerializer(allowed_msgpack_modules=[Check]).loads_typed(stored)
    assert isinstance(plain, dict) and plain["call"] == "f(2)"


def _sqlite_error(code: int, text: str) -> sqlite3.Error:
    err = sqlite3.OperationalError(text)
    err.sqlite_errorcode = code
    return err


def test_a_full_disk_a_lock_and_a_permission_are_not_called_a_broken_file(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    ioerr_write = 10 | (3 << 8)  # SQLITE_IOERR_WRITE: an extended code of SQLITE_IOERR
    for err in (
        _sqlite_error(13, "database or disk is full"),
        _sqlite_error(ioerr_write, "disk I/O error"),
        OSError(errno.ENOSPC, "No space left on device"),
    ):
        text = str(SqliteRuns.unusable(path, err))
        assert text.startswith(f"runs database {path} could not be read or written ({err}): ")
        assert "free of" in text and "move it away" not in text
    locked = str(SqliteRuns.unusable(path, _sqlite_error(5, "database is locked")))
    assert locked.startswith(f"runs database {path} is locked by another process (")
    for err in (
        _sqlite_error(8, "attempt to write a readonly database"),
        PermissionError(errno.EACCES, "Permission denied"),
    ):
        text = str(SqliteRuns.unusable(path, err))
        assert text.startswith(f"runs database {path} cannot be opened for writing ({err})")
        assert "move it away" not in text
    broken = SqliteRuns.unusable(path, sqlite3.DatabaseError("file is not a database"))
    assert isinstance(broken, RunsDatabaseError)
    assert str(broken) == (
        f"runs database {path} cannot be used (file is not a database); it was left as it is: "
        "move it away or set EDGESWARM_RUNS_DB to another file"
    )
    folder = str(SqliteRuns.unusable(tmp_path, sqlite3.OperationalError("unable to open")))
    assert "it is a directory, not a file" in folder and str(tmp_path / "runs.sqlite") in folder


async def test_a_file_that_is_no_database_is_reported_and_left_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    path.write_bytes(b"not a database at all " * 50)
    before = path.read_bytes()
    with pytest.raises(RunsDatabaseError, match="; it was left as it is: move it away"):
        async with SqliteRuns.open(path):
            pass
    assert path.read_bytes() == before


FIRST_RUNS_TABLE = (
    "CREATE TABLE runs (thread_id TEXT PRIMARY KEY, started TEXT NOT NULL, "
    "updated TEXT NOT NULL, task TEXT NOT NULL, options TEXT NOT NULL, status TEXT NOT NULL, "
    "pid INTEGER, pid_start BIGINT, last_node TEXT, result TEXT)"
)
"""The runs table as its first version made it: no host, no lease."""


async def test_a_runs_table_made_before_gets_the_later_columns(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    with contextlib.closing(sqlite3.connect(path)) as conn:
        conn.execute(FIRST_RUNS_TABLE)
        conn.execute("INSERT INTO runs VALUES ('t1', 's', 'u', 'add', '{}', 'done', 1, 2, 'x', '')")
        conn.commit()
    for _ in range(2):  # once added, opening again adds nothing
        async with open_database(path) as db:
            assert isinstance(db, SqliteRuns) and db.where == str(path)
            assert {"host", "lease_until", "thread_id", "result"} <= await db.column_names()
            rows = await db.rows("SELECT thread_id, status, host, lease_until FROM runs")
            assert rows == [("t1", "done", None, None)]


async def test_a_locked_transaction_holds_the_file_and_commits_whole_or_not_at_all(
    tmp_path: Path,
) -> None:
    path = tmp_path / "runs.sqlite"
    insert = (
        "INSERT INTO runs (thread_id, started, updated, task, options, status) "
        "VALUES (?, 's', 'u', 'add', '{}', 'running')"
    )
    done = "UPDATE runs SET status = 'done' WHERE thread_id = ?"
    async with SqliteRuns.open(path) as db:
        await db.write(insert, ("t1",))
        with pytest.raises(RuntimeError, match="crashed"):
            async with db.locked("t1"):
                await db.write(done, ("t1",))
                raise RuntimeError("crashed")
        assert await db.rows("SELECT status FROM runs") == [("running",)]
        async with db.locked("t1"):
            await db.write(done, ("t1",))
            with contextlib.closing(sqlite3.connect(path, timeout=0)) as other:
                with pytest.raises(sqlite3.OperationalError, match="database is locked"):
                    other.execute("BEGIN IMMEDIATE")  # another process waits its turn
                assert other.execute("SELECT status FROM runs").fetchall() == [("running",)]
        with contextlib.closing(sqlite3.connect(path)) as other:
            assert other.execute("SELECT status FROM runs").fetchall() == [("done",)]


def test_a_postgres_connection_waits_a_bounded_time_unless_the_url_says() -> None:
    options = postgres_connection(PostgresURL("postgresql://me@db/runs"))
    assert options == {
        "autocommit": True,
        "prepare_threshold": 0,
        "row_factory": dict_row,
        "connect_timeout": CONNECT_TIMEOUT_S,
    }
    given = postgres_connection(PostgresURL("postgresql://me@db/runs?connect_timeout=3"))
    assert "connect_timeout" not in given
