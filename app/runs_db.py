"""The databases that keep durable runs: a SQLite file (the default) or a PostgreSQL server.

Each holds LangGraph's checkpoint saver (``AsyncSqliteSaver``, ``AsyncPostgresSaver``) beside
the ``runs`` table, and offers the little the table needs:
statements written once with ``?`` placeholders (PostgreSQL gets ``%s``), rows as tuples, and
a transaction that locks one run against other processes (SQLite: ``BEGIN IMMEDIATE`` locks
the file; PostgreSQL: ``SELECT ... FOR UPDATE`` locks the run's row). A driver error becomes
:class:`RunsDatabaseError`, whose message names the database (never a password) and the
setting. The PostgreSQL driver is imported only when a PostgreSQL database is configured.
"""

from __future__ import annotations

import abc
import contextlib
import errno
import shutil
import sqlite3
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar

import aiosqlite
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from agents import examples, schemas
from graphs import state as state_types
from runtime.logs import add_secrets
from runtime.settings import PostgresURL
from tools import check_runner, evidence

if TYPE_CHECKING:
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    from psycopg import AsyncConnection
    from psycopg.rows import DictRow

CONNECT_TIMEOUT_S = 10
"""How long to wait for a PostgreSQL server that does not answer (unless the URL says)."""


class RunsDatabaseError(RuntimeError):
    """The runs database cannot be opened or read; the message names it and the setting."""


# SQLite's primary result codes (https://sqlite.org/rescode.html); an extended code's low byte.
_SQLITE_PERM, _SQLITE_BUSY, _SQLITE_LOCKED, _SQLITE_READONLY = 3, 5, 6, 8
_SQLITE_IOERR, _SQLITE_FULL, _SQLITE_CANTOPEN = 10, 13, 14
_DISK_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EFBIG})


def _free_space(path: Path) -> str:
    """How much room the filesystem holding ``path`` has, in words."""
    for folder in (path.parent, *path.parents):
        try:
            usage = shutil.disk_usage(folder)
        except OSError:
            continue
        return f"{usage.free / 2**20:,.0f} MiB free of {usage.total / 2**30:,.1f} GiB on {folder}"
    return "free space unknown"


def serializer() -> JsonPlusSerializer:
    """Checkpoint serializer that revives exactly the state's own types, nothing else."""
    modules: tuple[ModuleType, ...] = (state_types, schemas, examples, check_runner, evidence)
    allowed: list[type | tuple[str, ...]] = [
        obj
        for module in modules
        for obj in vars(module).values()
        if isinstance(obj, type) and obj.__module__ == module.__name__
    ]
    return JsonPlusSerializer(allowed_msgpack_modules=[*allowed, *MOVED_TYPES])


MOVED_TYPES: tuple[tuple[str, str], ...] = (
    ("agents.examples", "Check"),
    ("agents.examples", "EntryPoint"),
)
"""State types stored under the module that held them before (now in
:mod:`tools.check_runner`): a run checkpointed then still resumes. The serializer revives such
an entry by looking the name up in the old module, which still imports it."""


def postgres_connection(url: PostgresURL) -> dict[str, Any]:
    """Connection arguments ``AsyncPostgresSaver`` needs, and a bounded wait to connect."""
    from psycopg import conninfo
    from psycopg.rows import dict_row

    options: dict[str, Any] = {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row}
    if "connect_timeout" not in conninfo.conninfo_to_dict(url.url):
        options["connect_timeout"] = CONNECT_TIMEOUT_S
    return options


def _schema(sequence: str) -> tuple[str, ...]:
    """The runs table; ``sequence`` is a column that orders rows by insertion, if needed."""
    return (
        f"CREATE TABLE IF NOT EXISTS runs ({sequence}thread_id TEXT PRIMARY KEY, "
        "started TEXT NOT NULL, updated TEXT NOT NULL, task TEXT NOT NULL, "
        "options TEXT NOT NULL, status TEXT NOT NULL, pid INTEGER, pid_start BIGINT, "
        "last_node TEXT, result TEXT, host TEXT, lease_until DOUBLE PRECISION)",
        "CREATE INDEX IF NOT EXISTS runs_by_start ON runs (started)",
    )


LATER_COLUMNS = (("host", "TEXT"), ("lease_until", "DOUBLE PRECISION"))
"""Columns added to the runs table since its first version: a table made before gets them."""


class RunsDatabase(abc.ABC):
    """An open runs database: its checkpoint saver and the runs table's statements."""

    schema: ClassVar[tuple[str, ...]]
    newest_first: ClassVar[str]
    """ORDER BY clause: newest start first, then the latest inserted."""
    saver: AsyncSqliteSaver | AsyncPostgresSaver
    where: str
    """The database as messages name it (a path, or a URL without its password)."""

    async def create_tables(self) -> None:
        """Create the checkpoint tables and the runs table where they are missing."""
        await self.saver.setup()
        for statement in self.schema:
            await self.write(statement)
        have = await self.column_names()
        for name, kind in LATER_COLUMNS:
            if name not in have:
                await self.write(f"ALTER TABLE runs ADD COLUMN {name} {kind}")

    @abc.abstractmethod
    async def column_names(self) -> set[str]:
        """The runs table's columns."""

    @abc.abstractmethod
    async def write(self, sql: str, params: Sequence[Any] = ()) -> None:
        """Run a statement; committed at once unless inside :meth:`locked`."""

    @abc.abstractmethod
    async def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """The rows a query returns."""

    @abc.abstractmethod
    def locked(self, thread_id: str) -> contextlib.AbstractAsyncContextManager[None]:
        """A transaction in which no other process can change this run; rolled back on error."""


class SqliteRuns(RunsDatabase):
    """Runs in a SQLite file (``aiosqlite``)."""

    schema = _schema("")
    newest_first = "started DESC, rowid DESC"

    def __init__(self, conn: aiosqlite.Connection, path: Path) -> None:
        self._conn = conn
        self._in_transaction = False
        self.where = str(path)
        self.saver = AsyncSqliteSaver(conn, serde=serializer())

    @classmethod
    @contextlib.asynccontextmanager
    async def open(cls, path: Path) -> AsyncIterator[SqliteRuns]:
        """Open the file; a broken one is reported and left untouched.

        Raises:
            RunsDatabaseError: the file cannot be opened, is not a SQLite database, or fails
                later (also for errors raised in the block).
        """
        try:
            async with aiosqlite.connect(path) as conn:
                database = cls(conn, path)
                await database.create_tables()
                yield database
        except sqlite3.Error as err:
            raise cls.unusable(path, err) from None

    @staticmethod
    def unusable(path: Path, err: BaseException) -> RunsDatabaseError:
        """The error for a file that cannot be made, opened, read or written, saying what to do.

        Only a file that is not a database (or is damaged) is to be moved away; a full or
        failing disk, a lock held elsewhere or a permission leave an intact database that
        works again once the cause is gone (a full disk was reported as "move it away").
        """
        code = getattr(err, "sqlite_errorcode", None)
        primary = code & 0xFF if isinstance(code, int) else None
        os_errno = err.errno if isinstance(err, OSError) else None
        if primary in (_SQLITE_FULL, _SQLITE_IOERR) or os_errno in _DISK_ERRNOS:
            return RunsDatabaseError(
                f"runs database {path} could not be read or written ({err}): the disk may be "
                f"full, failing or over a quota or size limit ({_free_space(path)}). The "
                "database itself is most likely intact and was left as it is: free space or "
                "fix the disk, then run the command again"
            )
        if path.is_dir():
            return RunsDatabaseError(
                f"runs database {path} cannot be opened for writing: it is a directory, not a "
                f"file; set EDGESWARM_RUNS_DB to a file (such as {path / 'runs.sqlite'})"
            )
        if primary in (_SQLITE_BUSY, _SQLITE_LOCKED):
            return RunsDatabaseError(
                f"runs database {path} is locked by another process ({err}); try again once "
                "it is done, or set EDGESWARM_RUNS_DB to another file"
            )
        if (
            primary in (_SQLITE_PERM, _SQLITE_READONLY, _SQLITE_CANTOPEN)
            or os_errno == errno.EROFS
            or isinstance(
                err, PermissionError | IsADirectoryError | NotADirectoryError | FileExistsError
            )
        ):
            return RunsDatabaseError(
                f"runs database {path} cannot be opened for writing ({err}): check the path "
                "and its permissions, or set EDGESWARM_RUNS_DB to another file"
            )
        return RunsDatabaseError(
            f"runs database {path} cannot be used ({err}); it was left as it is: move it "
            "away or set EDGESWARM_RUNS_DB to another file"
        )

    async def write(self, sql: str, params: Sequence[Any] = ()) -> None:
        """Run a statement; committed at once unless inside :meth:`locked`."""
        await self._conn.execute(sql, params)
        if not self._in_transaction:
            await self._conn.commit()

    async def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """The rows a query returns."""
        async with self._conn.execute(sql, params) as cursor:
            return [tuple(row) async for row in cursor]

    async def column_names(self) -> set[str]:
        """The runs table's columns."""
        return {str(row[1]) for row in await self.rows("PRAGMA table_info(runs)")}

    @contextlib.asynccontextmanager
    async def locked(self, thread_id: str) -> AsyncIterator[None]:
        """A transaction holding the file's write lock: two resumes at once, one wins."""
        await self._conn.execute("BEGIN IMMEDIATE")
        self._in_transaction = True
        try:
            yield
            await self._conn.commit()
        except BaseException:
            await self._conn.rollback()
            raise
        finally:
            self._in_transaction = False


class PostgresRuns(RunsDatabase):
    """Runs in a PostgreSQL database (``psycopg``, autocommit outside :meth:`locked`).

    The saver has a connection of its own: it pipelines its writes behind its own lock, and
    the runs table is written while the graph runs (each node that finishes).
    """

    schema = _schema("seq BIGSERIAL, ")
    newest_first = "started DESC, seq DESC"

    def __init__(
        self, conn: AsyncConnection[DictRow], saver_conn: AsyncConnection[DictRow], url: PostgresURL
    ) -> None:
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

        self._conn = conn
        self.where = str(url)
        self.saver = AsyncPostgresSaver(saver_conn, serde=serializer())

    @classmethod
    @contextlib.asynccontextmanager
    async def open(cls, url: PostgresURL) -> AsyncIterator[PostgresRuns]:
        """Connect to the server (bounded wait) and create the tables it lacks.

        Raises:
            RunsDatabaseError: the URL is malformed, the server does not answer, refuses the
                login or fails later (also for errors raised in the block).
        """
        import psycopg

        add_secrets(*url.passwords())  # logs never show it, whatever quotes it
        connect = psycopg.AsyncConnection.connect
        try:
            options = postgres_connection(url)
            async with (
                await connect(url.url, **options) as conn,
                await connect(url.url, **options) as saver_conn,
            ):
                database = cls(conn, saver_conn, url)
                await database.create_tables()
                yield database
        except psycopg.Error as err:
            reason = url.scrub(" ".join(str(err).split()))  # libpq's text spans lines
            raise RunsDatabaseError(
                f"runs database {url} cannot be used ({reason}); check that the server runs "
                "and accepts this login, or set EDGESWARM_RUNS_DB to another database"
            ) from None

    async def write(self, sql: str, params: Sequence[Any] = ()) -> None:
        """Run a statement; committed at once unless inside :meth:`locked`."""
        async with self._conn.cursor() as cursor:
            await cursor.execute(sql.replace("?", "%s"), params)

    async def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """The rows a query returns."""
        from psycopg.rows import tuple_row

        async with self._conn.cursor(row_factory=tuple_row) as cursor:
            await cursor.execute(sql.replace("?", "%s"), params)
            return await cursor.fetchall()

    async def column_names(self) -> set[str]:
        """The runs table's columns (in the connection's search path)."""
        rows = await self.rows(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'runs' "
            "AND table_schema = current_schema()"
        )
        return {str(row[0]) for row in rows}

    @contextlib.asynccontextmanager
    async def locked(self, thread_id: str) -> AsyncIterator[None]:
        """A transaction holding the run's row lock: two resumes at once, one wins.

        It shares the connection with the saver; runs are claimed before their graph starts.
        """
        async with self._conn.transaction():
            await self.write("SELECT 1 FROM runs WHERE thread_id = ? FOR UPDATE", (thread_id,))
            yield


def open_database(
    where: Path | PostgresURL,
) -> contextlib.AbstractAsyncContextManager[RunsDatabase]:
    """Open the runs database at ``where``: a SQLite file or a PostgreSQL database."""
    return SqliteRuns.open(where) if isinstance(where, Path) else PostgresRuns.open(where)
