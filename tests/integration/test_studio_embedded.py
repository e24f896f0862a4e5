"""Studio as a new user meets it: `langgraph dev`, a task typed in, no context, real models.

No ``EDGESWARM_BASE_URL`` and no context: the server's first run starts the embedded gateway
with the real models (graphs/endpoints.py), its later runs share it, an `edgeswarm run` beside
it leases it too and leaves it running, and stopping the server stops the gateway and every
vLLM server it started. Driven through langgraph-sdk exactly as Studio drives it: the task
only, a breakpoint before the coder, then resume.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

from langgraph_sdk import get_client
from langgraph_sdk.schema import StreamPart

from tests.support.cli import assert_honest_result, edgeswarm
from tests.support.processes import alive, descendants, wait_gone
from tests.support.studio import GRAPH_ID, dev_process

TASK = "Write a Python function that returns the larger of two numbers."
"""No name in it: the researcher's brief names the entry point, then the coder waits."""
RUN_DEADLINE_S = 600.0
"""Both vLLM servers start on this run (a minute or two each on 2 cores), then the swarm."""


def updated_nodes(parts: list[StreamPart]) -> list[str]:
    return [node for part in parts if part.event == "updates" for node in part.data]


async def drive(url: str) -> tuple[list[str], list[str], dict[str, Any], list[dict[str, Any]]]:
    """One run as Studio makes it; the nodes before the breakpoint, what is next, the end,
    and the waits the run announced before the breakpoint (Studio shows ``custom`` events)."""
    async with get_client(url=url, api_key=None, timeout=120.0) as client:
        [assistant] = await client.assistants.search(graph_id=GRAPH_ID)
        thread_id: str = (await client.threads.create())["thread_id"]
        async with asyncio.timeout(RUN_DEADLINE_S):
            first = [
                part
                async for part in client.runs.stream(
                    thread_id,
                    assistant["assistant_id"],
                    input={"task": TASK},
                    interrupt_before=["coder"],
                    stream_mode=["updates", "custom"],
                )
            ]
            errors = [part.data for part in first if part.event == "error"]
            assert not errors, errors
            paused = await client.threads.get_state(thread_id)
            second = [
                part
                async for part in client.runs.stream(
                    thread_id, assistant["assistant_id"], input=None, stream_mode=["values"]
                )
            ]
        errors = [part.data for part in second if part.event == "error"]
        assert not errors, errors
        values = [part.data for part in second if part.event == "values"]
        waits = [p.data for p in first if p.event == "custom" and "phase" in p.data]
        return updated_nodes(first), sorted(paused["next"]), values[-1], waits


def test_a_task_typed_in_studio_runs_on_the_embedded_gateway_it_starts_and_shares(
    tmp_path: Path,
) -> None:
    workdir = tmp_path / "langgraph-dev"
    workdir.mkdir()
    server, url = dev_process(workdir, EDGESWARM_STATE_DIR=str(tmp_path / "state"))
    env = dict(server.env)
    with server:
        assert server.pid is not None
        before, paused_at, end, waits = asyncio.run(drive(url))
        started = descendants(server.pid)  # the gateway and its vLLM servers
        log = server.log_path.read_text(encoding="utf-8", errors="replace")
        # `edgeswarm run` while the server holds the gateway: it leases it, and ending
        # leaves it to the server (a run of the small model: the sharing is what is checked)
        cli = subprocess.run(
            edgeswarm("run", "--json", "--max-revisions", "0", TASK),
            env={**env, "EDGESWARM_LOG_FORMAT": "json", "PYTHONUNBUFFERED": "1"},
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert_honest_result(json.loads(cli.stdout), cli.returncode, cli.stderr)
        assert "gateway_reused" in cli.stderr and "gateway_started" not in cli.stderr
        assert alive(started) == started, "a run that leased the gateway must not stop it"
    assert before == ["setup", "researcher", "summarize_brief", "__interrupt__"], log[-3000:]
    # the minutes the first model takes to start are said while they pass (and the gateway's
    # own start, when it takes over a second)
    said = [(w["event"], w["node"], w["phase"]) for w in waits]
    model = "qwen2.5-coder-0.5b-instruct"
    assert ("model", "researcher", "waiting") in said, waits
    ready = said.index(("model", "researcher", "ready"))
    assert ready > said.index(("model", "researcher", "waiting")) and waits[ready]["model"] == model
    assert paused_at == ["coder", "test_writer"]
    assert "started the embedded gateway at http://127.0.0.1:" in log
    report = end.get("report")
    assert isinstance(report, dict), (end.get("error"), log[-3000:])
    assert report["outcome"] in {"approved", "unresolved", "failed"}
    if report["outcome"] != "failed":
        assert "def " in report["files"]["solution.py"]
    models = {m["model"] for m in end["metrics"]}
    assert "qwen2.5-coder-0.5b-instruct" in models, models
    # the server stopped: so did the gateway and the model servers it started
    assert started and wait_gone(started, 60) == set()
