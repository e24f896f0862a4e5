"""app.checkpointer: the LangGraph server's checkpointer, PostgreSQL when ``DATABASE_URI`` or
``POSTGRES_URI`` names a database (``DATABASE_URI`` first, ``:memory:`` counting as unset),
else one in-memory saver shared by the server's threads; a bad URL or a server that does not
answer is an error that names the variable, never the password.

The PostgreSQL tests use the throwaway server of tests/postgres.py.
"""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import psycopg
import pytest
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.graph import StateGraph

from app import checkpointer as server_checkpointer
from app.checkpointer import CheckpointerError, database_url
from runtime.process import free_port
from runtime.settings import PostgresURL
from tests.postgres import PostgresServer

PASSWORD = "s3cret-Pass"


@pytest.fixture(autouse=True)
def _no_database_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in server_checkpointer.URL_VARIABLES:
        monkeypatch.delenv(name, raising=False)


class Counter(TypedDict):
    count: Annotated[int, operator.add]


def counting_graph() -> StateGraph[Counter]:
    builder = StateGraph(Counter)
    builder.add_node("one", lambda state: {"count": 1})
    builder.add_node("two", lambda state: {"count": 1})
    builder.add_edge("__start__", "one")
    builder.add_edge("one", "two")
    return builder


@pytest.mark.postgres
async def test_server_checkpointer_keeps_checkpoints_in_postgres(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URI", ":memory:")  # as `langgraph dev` sets it
    monkeypatch.setenv("POSTGRES_URI", postgres_url)
    config: RunnableConfig = {"configurable": {"thread_id": "t1"}}
    async with server_checkpointer.checkpointer() as saver:
        assert isinstance(saver, AsyncPostgresSaver)
        graph = counting_graph().compile(checkpointer=saver)
        assert (await graph.ainvoke({"count": 0}, config))["count"] == 2
    async with server_checkpointer.checkpointer() as saver:  # a restarted server
        graph = counting_graph().compile(checkpointer=saver)
        assert (await graph.aget_state(config)).values == {"count": 2}
    with psycopg.connect(postgres_url) as conn:
        rows = conn.execute("SELECT count(*) FROM checkpoints WHERE thread_id = 't1'").fetchone()
        assert rows is not None and rows[0] == 4  # the input, __start__, one, two


async def test_server_checkpointer_without_a_database_keeps_checkpoints_in_memory(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with server_checkpointer.checkpointer() as first:
        assert isinstance(first, InMemorySaver)
    monkeypatch.setenv("DATABASE_URI", ":memory:")  # `langgraph dev`
    async with server_checkpointer.checkpointer() as first:
        assert isinstance(first, InMemorySaver)
    async with server_checkpointer.checkpointer() as second:
        assert second is first  # shared by the server's threads


@pytest.mark.postgres
async def test_server_checkpointer_errors_name_the_variable(
    monkeypatch: pytest.MonkeyPatch, postgres_server: PostgresServer
) -> None:
    monkeypatch.setenv("DATABASE_URI", f"postgresql://me:{PASSWORD}@h:port/db")
    monkeypatch.setenv("POSTGRES_URI", postgres_server.url())  # DATABASE_URI wins, as in the server
    with pytest.raises(server_checkpointer.CheckpointerError, match="DATABASE_URI: not a valid"):
        async with server_checkpointer.checkpointer():
            pass
    monkeypatch.setattr(server_checkpointer, "CONNECT_TIMEOUT_S", 1)
    url = f"postgresql://me:{PASSWORD}@127.0.0.1:{free_port()}/db"
    monkeypatch.setenv("DATABASE_URI", url)
    with pytest.raises(server_checkpointer.CheckpointerError) as raised:
        async with server_checkpointer.checkpointer():
            pass
    assert f"database {PostgresURL(url)} (DATABASE_URI) did not accept" in str(raised.value)
    assert PASSWORD not in str(raised.value)


def test_the_database_is_named_by_database_uri_first_then_postgres_uri() -> None:
    assert database_url({}) is None
    assert database_url({"DATABASE_URI": ":memory:", "POSTGRES_URI": ""}) is None  # langgraph dev
    url = f"postgresql://me:{PASSWORD}@db:5432/lg"
    found = database_url({"DATABASE_URI": ":memory:", "POSTGRES_URI": url})
    assert found == ("POSTGRES_URI", PostgresURL(url))
    short = "postgres://me@db/lg"
    found = database_url({"DATABASE_URI": short, "POSTGRES_URI": url})
    assert found == ("DATABASE_URI", PostgresURL(short))


def test_a_value_that_is_no_postgresql_url_is_an_error_naming_the_variable() -> None:
    with pytest.raises(CheckpointerError, match="^POSTGRES_URI: not a postgresql:// URL$"):
        database_url({"POSTGRES_URI": f"mysql://me:{PASSWORD}@db/lg"})
    with pytest.raises(CheckpointerError) as raised:
        database_url({"DATABASE_URI": f"postgresql://me:{PASSWORD}@db:port/lg"})
    assert str(raised.value).startswith("DATABASE_URI: ") and PASSWORD not in str(raised.value)
