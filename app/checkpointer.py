"""The LangGraph server's checkpointer: PostgreSQL, reviving only the swarm's own types.

``langgraph.json`` names :func:`checkpointer` under ``"checkpointer": {"path": ...}``, so a
LangGraph server deployment keeps its threads' checkpoints in the PostgreSQL database named by
``DATABASE_URI`` or else ``POSTGRES_URI`` (the variables the LangGraph server image reads),
through LangGraph's ``AsyncPostgresSaver`` with the serializer of the CLI's runs. Without
either (``langgraph dev`` sets ``DATABASE_URI`` to ``:memory:``, which counts as unset) the
checkpoints stay in this process's memory, shared by the server's threads, with a warning.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator, Mapping

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from psycopg import AsyncConnection
from psycopg.rows import DictRow
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from app.runs_db import CONNECT_TIMEOUT_S, postgres_connection, serializer
from runtime.logs import get_logger
from runtime.settings import POSTGRES_SCHEMES, PostgresURL

URL_VARIABLES = ("DATABASE_URI", "POSTGRES_URI")
IN_MEMORY = ":memory:"
"""What ``langgraph dev`` (the in-memory server) sets ``DATABASE_URI`` to."""
_log = get_logger("checkpointer")
_memory = InMemorySaver(serde=serializer())


class CheckpointerError(RuntimeError):
    """The configured PostgreSQL database cannot be used; the message names the variable."""


def database_url(environ: Mapping[str, str]) -> tuple[str, PostgresURL] | None:
    """The first of :data:`URL_VARIABLES` that is set (not to ``:memory:``) and its URL.

    Raises:
        CheckpointerError: the value is not a valid postgresql:// URL.
    """
    name = next((n for n in URL_VARIABLES if environ.get(n, "") not in ("", IN_MEMORY)), None)
    if name is None:
        return None
    url = PostgresURL(environ[name])
    try:
        if not url.url.startswith(POSTGRES_SCHEMES):
            raise ValueError("not a postgresql:// URL")
        url.check()
    except ValueError as err:
        raise CheckpointerError(f"{name}: {err}") from None
    return name, url


@contextlib.asynccontextmanager
async def checkpointer() -> AsyncIterator[BaseCheckpointSaver[str]]:
    """The server's checkpointer, for as long as the server runs (``langgraph.json``).

    Raises:
        CheckpointerError: the database is configured but does not accept a connection in time.
    """
    found = database_url(os.environ)
    if found is None:
        _log.warning("checkpoints_in_memory", unset=" and ".join(URL_VARIABLES))
        yield _memory
        return
    name, url = found
    # The saver runs one query at a time (it holds a lock); the pool replaces a broken
    # connection, so a database restart does not take the server down with it.
    async with AsyncConnectionPool(
        url.url,
        connection_class=AsyncConnection[DictRow],
        kwargs=postgres_connection(url),
        min_size=1,
        max_size=1,
        open=False,
        check=AsyncConnectionPool.check_connection,
    ) as pool:
        try:
            await pool.wait(timeout=CONNECT_TIMEOUT_S)
        except PoolTimeout:
            raise CheckpointerError(
                f"checkpointer: the PostgreSQL database {url} ({name}) did not accept a "
                f"connection within {CONNECT_TIMEOUT_S} s"
            ) from None
        saver = AsyncPostgresSaver(pool, serde=serializer())
        await saver.setup()
        _log.info("checkpoints_in_postgres", database=str(url), variable=name)
        yield saver
