"""Durable runs: every CLI run checkpointed, resumable by its thread id.

The runs database is a SQLite file by default, or a PostgreSQL database when
``EDGESWARM_RUNS_DB`` is a ``postgresql://`` URL (:mod:`app.runs_db`). LangGraph's saver
owns the checkpoint tables; beside them the ``runs`` table keeps what ``edgeswarm resume`` and
``edgeswarm runs`` need: the task and the options the run was started with, the process that
runs it, the last node that finished, and the final result.

A running run holds a lease in its row: the host that runs it (:func:`this_host`), its pid
and the pid's start time, and an expiry its process keeps pushing forward
(:class:`LeaseKeeper`). It reads as interrupted once its process is gone (on the same host,
seen at once) or its lease ran out (from any host, within :data:`LEASE_S`): so two hosts, or two
pid namespaces, sharing one runs database never both resume it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import sqlite3
import threading
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, TypeVar, cast

from langchain_core.runnables import RunnableConfig

from app.runs_db import RunsDatabase, RunsDatabaseError, SqliteRuns, open_database
from runtime.logs import get_logger
from runtime.process import process_alive, process_start
from runtime.settings import PostgresURL

_log = get_logger("runs")

RunStatus = Literal["running", "interrupted", "done", "failed"]
T = TypeVar("T")

_COLUMNS = (
    "thread_id, started, updated, task, options, status, pid, pid_start, last_node, result, "
    "host, lease_until"
)

LEASE_S = 60.0
"""How long a run's lease lasts unless its process renews it (every third of it)."""


def this_host() -> str:
    """This machine and pid namespace, as a run's lease names them.

    A pid means something only where all three match: the hostname, the kernel's boot id and
    the pid namespace.
    """
    parts = [socket.gethostname()]
    for source in ("/proc/sys/kernel/random/boot_id", "/proc/self/ns/pid"):
        try:
            parts.append(
                os.readlink(source) if source.endswith("/pid") else Path(source).read_text().strip()
            )
        except OSError:
            parts.append("?")
    return " ".join(parts)


class RunNotFoundError(LookupError):
    """No run has this thread id."""


class RunBusyError(RuntimeError):
    """The run is still running in another process."""


@dataclass(frozen=True, kw_only=True)
class RunOptions:
    """What a run was started with, so that a resume uses the same."""

    model: str
    """The settings' catalogue model (the embedded server's, and the name to request)."""
    base_url: str | None = None
    """The OpenAI-compatible server the run used; None: a served or the embedded model."""
    served_model_name: str | None = None
    """The model name requested from base_url (settings); None: ``model``."""
    overrides: dict[str, Any] = field(default_factory=dict)
    """Context overrides: model choices, revision limit, request deadline."""
    workspace: str | None = None
    """The researcher's workspace directory."""
    database: str | None = None
    """The researcher's SQLite file."""
    out: str | None = None
    """Where the run writes its files and report."""


@dataclass(frozen=True, kw_only=True)
class RunRecord:
    """One row of the runs table, with the status as it stands now."""

    thread_id: str
    started: str
    """When the run started (ISO 8601, UTC)."""
    updated: str
    """When the row last changed."""
    task: str
    options: RunOptions
    status: RunStatus
    pid: int | None
    """The process that runs (or last ran) it."""
    host: str | None = None
    """Where that process runs (:func:`this_host`); None for a run recorded before leases."""
    last_node: str | None
    """The last graph node that finished."""
    result: dict[str, Any] | None
    """The output of a finished run, as ``run`` printed it."""

    @property
    def finished(self) -> bool:
        """True once the graph reached its end."""
        return self.status in ("done", "failed")

    def summary(self) -> dict[str, Any]:
        """The row as ``edgeswarm runs`` shows it."""
        report = (self.result or {}).get("report") or {}
        return {
            "thread_id": self.thread_id,
            "started": self.started,
            "status": self.status,
            "outcome": report.get("outcome"),
            "task": (self.task.splitlines() or [""])[0],
            "last_node": self.last_node,
            "updated": self.updated,
            "pid": self.pid,
        }


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class RunStore:
    """The runs database: LangGraph's checkpoints and the ``runs`` table, one connection."""

    def __init__(self, database: RunsDatabase) -> None:
        self._db = database
        self.saver = database.saver

    @classmethod
    @contextlib.asynccontextmanager
    async def open(cls, where: Path | PostgresURL) -> AsyncIterator[RunStore]:
        """Open the database, creating the tables it lacks; a broken file is left untouched.

        Raises:
            RunsDatabaseError: the database cannot be opened or used (a file that is not a
                SQLite database, a server that does not answer or refuses the login).
        """
        async with open_database(where) as database:
            yield cls(database)

    async def create(self, task: str, options: RunOptions) -> RunRecord:
        """Record a new run, owned by this process, under a fresh thread id."""
        now, pid = _now(), os.getpid()
        thread_id = str(uuid.uuid4())
        await self._db.write(
            f"INSERT INTO runs ({_COLUMNS}) VALUES "  # noqa: S608
            "(?, ?, ?, ?, ?, 'running', ?, ?, NULL, NULL, ?, ?)",
            (
                thread_id,
                now,
                now,
                task,
                json.dumps(asdict(options)),
                pid,
                process_start(pid),
                this_host(),
                _lease_end(),
            ),
        )
        return await self.get(thread_id)

    async def get(self, thread_id: str) -> RunRecord:
        """The run with this thread id.

        Raises:
            RunNotFoundError: there is none.
        """
        query = f"SELECT {_COLUMNS} FROM runs WHERE thread_id = ?"  # noqa: S608
        rows = await self._db.rows(query, (thread_id,))
        if not rows:
            raise RunNotFoundError(
                f"no run has thread id {thread_id!r} (database {self._db.where})"
            )
        return _record(rows[0])

    async def list(self, limit: int | None = None) -> list[RunRecord]:
        """Runs, newest first."""
        query = f"SELECT {_COLUMNS} FROM runs ORDER BY {self._db.newest_first}"  # noqa: S608
        params: tuple[int, ...] = ()
        if limit is not None:
            query, params = f"{query} LIMIT ?", (limit,)
        return [_record(row) for row in await self._db.rows(query, params)]

    async def claim(self, thread_id: str) -> RunRecord:
        """The run as it stood; an unfinished one now belongs to this process.

        Raises:
            RunNotFoundError: there is no such run.
            RunBusyError: another live process runs it.
        """
        async with self._db.locked(thread_id):  # two resumes at once: one wins
            record = await self.get(thread_id)
            if record.status == "running":
                where = "" if record.host in (None, this_host()) else f" on {record.host}"
                raise RunBusyError(f"run {thread_id} is still running (pid {record.pid}{where})")
            if not record.finished:
                pid = os.getpid()
                await self._db.write(
                    "UPDATE runs SET status = 'running', pid = ?, pid_start = ?, updated = ?, "
                    "host = ?, lease_until = ? WHERE thread_id = ?",
                    (
                        pid,
                        process_start(pid),
                        _now(),
                        this_host(),
                        _lease_end(),
                        thread_id,
                    ),
                )
        return record

    async def renew(self, thread_id: str) -> bool:
        """Push this process's lease on a running run forward; False when it holds none."""
        pid = os.getpid()
        await self._db.write(
            "UPDATE runs SET lease_until = ? WHERE thread_id = ? AND status = 'running' "
            "AND pid = ? AND host = ?",
            (_lease_end(), thread_id, pid, this_host()),
        )
        record = await self.get(thread_id)
        return record.status == "running" and record.pid == pid and record.host == this_host()

    async def _update(self, thread_id: str, **values: Any) -> None:
        columns = ", ".join(f"{name} = ?" for name in values)
        await self._db.write(
            f"UPDATE runs SET {columns}, updated = ? WHERE thread_id = ?",  # noqa: S608
            (*values.values(), _now(), thread_id),
        )

    async def finish(self, thread_id: str, output: Mapping[str, Any]) -> None:
        """Record the output of a run whose graph reached its end."""
        status = "failed" if output.get("status") == "failed" else "done"
        await self._update(thread_id, status=status, result=json.dumps(output))

    async def node_done(self, thread_id: str, node: str) -> None:
        """Record the node that just finished."""
        await self._update(thread_id, last_node=node)

    async def interrupted(self, thread_id: str) -> None:
        """Record that the run stopped before the graph's end."""
        await self._update(thread_id, status="interrupted")

    async def has_checkpoint(self, thread_id: str) -> bool:
        """True once the graph saved a checkpoint of this thread.

        Raises:
            RunsDatabaseError: the checkpoint is there but does not decode (a garbled row, or
                one written by an incompatible version): the run cannot be resumed.
        """
        try:
            found = await self.saver.aget_tuple(thread_config(thread_id))
        except (ValueError, TypeError, LookupError) as err:  # the serializer's, on bad bytes
            raise RunsDatabaseError(
                f"the checkpoint of run {thread_id} is unreadable ({type(err).__name__}: "
                f"{err}); it was left as it is in {self._db.where}. Start the task again with "
                "`edgeswarm run`"
            ) from None
        return found is not None


def thread_config(thread_id: str) -> RunnableConfig:
    """The graph config that names the run's thread."""
    return {"configurable": {"thread_id": thread_id}}


def _record(row: Any) -> RunRecord:
    thread_id, started, updated, task, options, status, pid, pid_start, last_node, result = row[:10]
    host, lease_until = row[10:]
    if status == "running" and not _alive(pid, pid_start, host, lease_until):
        status = "interrupted"
    try:
        return RunRecord(
            thread_id=thread_id,
            started=started,
            updated=updated,
            task=task,
            options=RunOptions(**json.loads(options)),
            status=cast(RunStatus, status),
            pid=pid,
            host=host,
            last_node=last_node,
            result=json.loads(result) if result else None,
        )
    except (ValueError, TypeError) as err:
        raise RunsDatabaseError(f"the record of run {thread_id} is unreadable: {err}") from None


def _lease_end() -> float:
    return time.time() + LEASE_S


def _alive(pid: int | None, pid_start: int | None, host: str | None, until: float | None) -> bool:
    """Whether the process holding a running run still runs it.

    Its lease is current and, on this host, its pid is alive (a row from before leases: the
    pid alone).
    """
    if until is not None and until < time.time():
        return False  # its process stopped renewing: gone, or cut off from the database
    if host is None or host == this_host():
        return pid is not None and process_alive(pid, pid_start)
    return until is not None  # another host's process: its lease alone tells


class LeaseKeeper:
    """Renews this process's lease on a run while the run lives.

    A thread of its own, so that a model taking minutes to start, or a node that computes,
    does not let the lease lapse.
    """

    def __init__(self, where: Path | PostgresURL, thread_id: str, every_s: float = LEASE_S / 3):
        self._where, self._thread_id, self._every_s = where, thread_id, every_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="run-lease", daemon=True)

    def __enter__(self) -> LeaseKeeper:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(timeout=30)

    def _run(self) -> None:
        while not self._stop.wait(self._every_s):
            try:
                held = using(self._where, lambda store: store.renew(self._thread_id))
            except (RunsDatabaseError, RunNotFoundError) as err:  # tried again next time
                _log.warning("lease_not_renewed", thread_id=self._thread_id, error=str(err))
                continue
            if not held:
                _log.warning("lease_lost", thread_id=self._thread_id)
                return


def using(
    where: Path | PostgresURL,
    operation: Callable[[RunStore], Awaitable[T]],
    *,
    create: bool = True,
) -> T:
    """Run one operation on the runs database at ``where``, for synchronous callers.

    Raises:
        RunNotFoundError: ``create`` is off and there is no database file yet.
        RunsDatabaseError: the database cannot be made, opened or read.
    """
    if isinstance(where, Path):
        _check_file(where, create=create)

    async def go() -> T:
        async with RunStore.open(where) as store:
            return await operation(store)

    return asyncio.run(go())


def _check_file(path: Path, *, create: bool) -> None:
    if not create and not path.exists():
        raise RunNotFoundError(f"there are no runs yet (no database at {path})")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Opened here first: when aiosqlite cannot open a file, its worker thread outlives the
        # event loop and fails there.
        sqlite3.connect(path).close()
    except (OSError, sqlite3.Error) as err:
        raise SqliteRuns.unusable(path, err) from None
