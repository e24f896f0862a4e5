"""LangGraph Studio's view of the swarm graph: `langgraph dev`, driven through langgraph-sdk.

Studio is a hosted web UI that talks to the local server's HTTP API; langgraph-sdk calls the
same routes (assistants, graph drawing, schemas, threads, streamed runs with breakpoints,
state and history). The server runs offline against the fake OpenAI-compatible server, so
no model is needed and the run is fully scripted.

`langgraph dev` keeps its state under ``.langgraph_api/`` in its working directory. It
ignores ``LANGGRAPH_DISABLE_FILE_PERSISTENCE`` (it sets that variable itself from a config key
that its own config validation drops), so the server runs in a temp directory instead of the
repo root, with a copy of the real ``langgraph.json`` whose paths are made absolute (the CLI
resolves them against the working directory). Nothing is written into the checkout.

The server runs twice: without a database (our checkpointer, app/checkpointer.py, keeps
checkpoints in memory) and with ``POSTGRES_URI`` naming a database of the throwaway PostgreSQL
server, where the run's checkpoints must land.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import psycopg
import pytest
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient
from langgraph_sdk.schema import StreamPart, ThreadState

from graphs.context import Context
from graphs.roles import every_role
from runtime.process import ManagedProcess
from tests.fakes import FakeOpenAI
from tests.support.scripts import BRIEF, GOOD_CODE, audits, brief, code, suite
from tests.support.studio import GRAPH_ID, dev_process

NODES = (
    "setup",
    "researcher",
    "summarize_brief",
    "coder",
    "run_tests",
    "gather_evidence",
    "security_auditor",
    "performance_auditor",
    "decide",
    "finish",
)
RUN_DEADLINE_S = 60.0
# What the server log must never show: the blocking-call detector firing in one of our async
# nodes, a checkpoint value refused on load, or any traceback.
LOG_ALARMS = ("BlockingError", "Blocked deserialization", "Traceback")


@dataclass
class DevServer:
    """A running `langgraph dev` and where its log goes."""

    process: ManagedProcess
    url: str
    workdir: Path
    database: str | None
    """The PostgreSQL URL the server keeps checkpoints in; None: in memory."""

    def log(self) -> str:
        return self.process.log_path.read_text(encoding="utf-8", errors="replace")


@pytest.fixture(
    scope="module", params=["memory", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def dev_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[DevServer]:
    """`langgraph dev` on a free port, offline, in a temp working directory."""
    workdir = tmp_path_factory.mktemp("langgraph-dev")
    database = None
    env: dict[str, str] = {}
    if request.param == "postgres":
        database = request.getfixturevalue("postgres_server").create_database()
        env["POSTGRES_URI"] = database
    process, url = dev_process(workdir, **env)
    with process:
        yield DevServer(process=process, url=url, workdir=workdir, database=database)


@pytest.fixture
async def client(dev_server: DevServer) -> AsyncIterator[LangGraphClient]:
    # api_key=None: never pick up a LangSmith key from the environment.
    async with get_client(url=dev_server.url, api_key=None, timeout=30.0) as sdk:
        yield sdk


def run_context(fake: FakeOpenAI) -> dict[str, Any]:
    """Per-run context, as Studio sends it: every role on the fake server's model."""
    context = Context(
        base_url=fake.base_url,
        **every_role(fake.model),
        fallback_model=None,
        lease_models=False,
    )
    return asdict(context)


async def swarm_assistant_id(client: LangGraphClient) -> str:
    assistants = await client.assistants.search(graph_id=GRAPH_ID)
    assert [a["graph_id"] for a in assistants] == [GRAPH_ID], assistants
    assistant_id: str = assistants[0]["assistant_id"]
    return assistant_id


async def collect(stream: AsyncIterator[StreamPart]) -> list[StreamPart]:
    """Every part of a run's stream, within the run deadline; no part may be an error."""
    async with asyncio.timeout(RUN_DEADLINE_S):
        parts = [part async for part in stream]
    errors = [part.data for part in parts if part.event == "error"]
    assert not errors, errors
    return parts


def state_values(state: ThreadState) -> dict[str, Any]:
    """A thread state's values: a mapping for a graph with a dataclass state."""
    values = state["values"]
    assert isinstance(values, dict), values
    return values


def updated_nodes(parts: list[StreamPart]) -> list[str]:
    return [node for part in parts if part.event == "updates" for node in part.data]


def schema_names(fake: FakeOpenAI) -> list[str]:
    return [
        (body.get("response_format") or {}).get("json_schema", {}).get("name", "code")
        for body in fake.requests()
    ]


async def test_studio_finds_the_swarm_assistant_its_drawing_and_schemas(
    client: LangGraphClient,
) -> None:
    assistant_id = await swarm_assistant_id(client)

    drawing = await client.assistants.get_graph(assistant_id, xray=True)
    node_ids = {node["id"] for node in drawing["nodes"]}
    assert set(NODES) <= node_ids, sorted(node_ids)
    edges = {(edge["source"], edge["target"]) for edge in drawing["edges"]}
    assert {
        ("__start__", "setup"),
        ("setup", "researcher"),
        ("gather_evidence", "security_auditor"),
        ("gather_evidence", "performance_auditor"),
        ("security_auditor", "decide"),
        ("performance_auditor", "decide"),
        ("decide", "coder"),  # the revision loop
        ("finish", "__end__"),
    } <= edges, sorted(edges)

    schemas = await client.assistants.get_schemas(assistant_id)
    input_schema, output_schema = schemas["input_schema"], schemas["output_schema"]
    context_schema = schemas["context_schema"]
    assert input_schema and output_schema and context_schema, schemas
    assert "task" in input_schema["properties"] and "task" in input_schema["required"]
    assert {"status", "report", "error", "metrics"} <= set(output_schema["properties"])
    context_fields = set(context_schema["properties"])
    assert "base_url" in context_fields
    assert context_fields == {field.name for field in fields(Context)}


async def test_studio_run_stops_before_the_coder_then_resumes_to_an_approved_report(
    client: LangGraphClient, dev_server: DevServer, fake_openai: FakeOpenAI
) -> None:
    # four candidates (the default), the writer's checks, both auditors
    fake_openai.script(brief(), *[code(GOOD_CODE)] * 4, suite(), *audits())
    context = run_context(fake_openai)
    assistant_id = await swarm_assistant_id(client)
    thread_id: str = (await client.threads.create())["thread_id"]

    first = await collect(
        client.runs.stream(
            thread_id,
            assistant_id,
            input={"task": "add two numbers"},
            context=context,
            interrupt_before=["coder"],
            stream_mode=["values", "updates"],
        )
    )
    assert updated_nodes(first) == ["setup", "researcher", "summarize_brief", "__interrupt__"]
    paused = await client.threads.get_state(thread_id)
    assert sorted(paused["next"]) == ["coder", "test_writer"]
    assert (await client.threads.get(thread_id))["status"] == "interrupted"
    values = state_values(paused)
    assert {key: values["brief"][key] for key in BRIEF} == BRIEF  # the researcher's brief
    assert values["entry"]["name"] == "add"  # the entry point, from the brief
    assert not values.get("files")
    assert schema_names(fake_openai) == ["ResearchBrief"]  # no lookups to condense, no coder yet

    # Resuming is a new run on the thread: its context must be sent again.
    second = await collect(
        client.runs.stream(
            thread_id,
            assistant_id,
            input=None,
            context=context,
            stream_mode=["values", "updates", "custom"],
        )
    )
    # each model call as it ended, on the custom stream, as the CLI prints it
    calls = [part.data for part in second if part.event == "custom"]
    assert sorted(c["node"] for c in calls).count("coder") == 4, calls
    assert {c["node"] for c in calls} == {
        "coder",
        "test_writer",
        "security_auditor",
        "performance_auditor",
    }
    assert all(c["event"] == "call" and c["model"] == fake_openai.model for c in calls)
    resumed = updated_nodes(second)
    assert sorted(resumed[:2]) == ["coder", "test_writer"]
    assert resumed[2:4] == ["run_tests", "gather_evidence"]
    assert sorted(resumed[4:6]) == ["performance_auditor", "security_auditor"]
    assert resumed[6:] == ["decide", "finish"]
    last_values = [part.data for part in second if part.event == "values"][-1]
    assert last_values["status"] == "done"

    final = await client.threads.get_state(thread_id)
    assert tuple(final["next"]) == ()
    state = state_values(final)
    assert state["status"] == "done", state.get("error")
    report = state["report"]
    assert report["outcome"] == "approved", report["reason"]
    assert report["files"]["solution.py"] == GOOD_CODE
    assert report["tests"]["ok"] and report["tests"]["passed"] == 2
    assert (await client.threads.get(thread_id))["status"] == "idle"
    assert {body["model"] for body in fake_openai.requests()} == {fake_openai.model}
    assert schema_names(fake_openai).count("code") == 4

    history = await client.threads.get_history(thread_id, limit=50)
    assert len(history) >= 8, [h["next"] for h in history]
    assert len({h["checkpoint"]["checkpoint_id"] for h in history}) == len(history)
    assert tuple(history[0]["next"]) == ()  # newest first
    assert [h for h in history if sorted(h["next"]) == ["coder", "test_writer"]]
    assert tuple(history[-1]["next"]) == ("__start__",)  # oldest last
    if dev_server.database is not None:  # the server used our Postgres checkpointer
        with psycopg.connect(dev_server.database) as conn:
            query = "SELECT count(*) FROM checkpoints WHERE thread_id = %s"
            stored = conn.execute(query, (thread_id,)).fetchone()
        assert stored is not None and stored[0] == len(history), (stored, len(history))

    log = dev_server.log()
    alarms = [line for line in log.splitlines() if any(alarm in line for alarm in LOG_ALARMS)]
    assert not alarms, "\n".join(alarms[:20])


async def test_studio_reuses_the_brief_of_a_task_run_again(
    client: LangGraphClient, dev_server: DevServer, fake_openai: FakeOpenAI
) -> None:
    # The served graph caches the researcher's node (task, workspace, database, model): a
    # second run of the same task, on a new thread, starts from the brief without asking.
    fake_openai.script(brief())
    context = run_context(fake_openai)
    assistant_id = await swarm_assistant_id(client)
    task = f"add two numbers, {dev_server.url}"  # a task of this server's runs alone
    for again in (False, True):
        thread_id: str = (await client.threads.create())["thread_id"]
        parts = await collect(
            client.runs.stream(
                thread_id,
                assistant_id,
                input={"task": task},
                context=context,
                interrupt_before=["coder"],
                stream_mode=["updates"],
            )
        )
        nodes = [node for node in updated_nodes(parts) if node != "__metadata__"]
        assert nodes == ["setup", "researcher", "summarize_brief", "__interrupt__"]
        # LangGraph marks the update it replayed from the cache
        cached = [
            part.data.get("__metadata__")
            for part in parts
            if part.event == "updates" and "researcher" in part.data
        ]
        assert cached == [{"cached": True} if again else None], parts
        values = state_values(await client.threads.get_state(thread_id))
        assert {key: values["brief"][key] for key in BRIEF} == BRIEF
    assert schema_names(fake_openai).count("ResearchBrief") == 1
