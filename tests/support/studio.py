"""``langgraph dev`` as Studio's server, offline, in a working directory of its own.

`langgraph dev` keeps its state under ``.langgraph_api/`` in its working directory and ignores
``LANGGRAPH_DISABLE_FILE_PERSISTENCE``, so :func:`dev_process` runs it in a given directory
with a copy of the real ``langgraph.json`` whose paths are made absolute (the CLI resolves them
against the working directory): nothing is written into the checkout.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from runtime.process import ManagedProcess, free_port
from tests.support import ROOT

LANGGRAPH = Path(sys.executable).with_name("langgraph")
GRAPH_ID = "swarm"
"""The swarm graph's id in langgraph.json."""
OFFLINE_ENV = {
    "LANGGRAPH_CLI_NO_ANALYTICS": "1",
    "LANGGRAPH_NO_VERSION_CHECK": "true",
    "LANGSMITH_TRACING": "false",
    # Overridden by `langgraph dev` itself (see the module docstring); kept for servers that
    # honour it. The temp working directory is what keeps state out of the checkout.
    "LANGGRAPH_DISABLE_FILE_PERSISTENCE": "true",
}


def absolute_config(source: Path) -> dict[str, Any]:
    """``source`` (a langgraph.json) with its local paths made absolute against its folder."""
    config: dict[str, Any] = json.loads(source.read_text(encoding="utf-8"))
    base = source.parent

    def local(path: str) -> str:
        return str((base / path).resolve()) if path.startswith(".") else path

    config["dependencies"] = [local(dep) for dep in config["dependencies"]]
    graphs: dict[str, str] = {}
    for graph_id, spec in config["graphs"].items():
        path, _, attribute = spec.rpartition(":")
        graphs[graph_id] = f"{local(path)}:{attribute}"
    config["graphs"] = graphs
    checkpointer = config.get("checkpointer", {})
    if "path" in checkpointer:
        path, _, attribute = checkpointer["path"].rpartition(":")
        checkpointer["path"] = f"{local(path)}:{attribute}"
    return config


def dev_process(workdir: Path, **env: str) -> tuple[ManagedProcess, str]:
    """`langgraph dev` on a free port, offline, run in ``workdir`` (not yet started), and its URL.

    ``workdir`` gets a copy of the real langgraph.json with absolute paths and the log; the
    server's environment is ours, offline, with no database and no EDGESWARM_BASE_URL unless
    ``env`` names one.
    """
    assert LANGGRAPH.exists(), f"{LANGGRAPH} is missing: install the studio extra (make install)"
    config_path = workdir / "langgraph.json"
    config_path.write_text(json.dumps(absolute_config(ROOT / "langgraph.json")), encoding="utf-8")
    port = free_port()
    environ = {**os.environ, **OFFLINE_ENV}
    for name in ("DATABASE_URI", "POSTGRES_URI", "EDGESWARM_BASE_URL"):
        environ.pop(name, None)
    where = ["--host", "127.0.0.1", "--port", str(port), "--config", str(config_path)]
    process = ManagedProcess(
        f"langgraph-dev:{port}",
        [str(LANGGRAPH), "dev", "--no-browser", "--no-reload", *where],
        health_url=f"http://127.0.0.1:{port}/ok",
        log_path=workdir / "server.log",
        env={**environ, **env},
        cwd=workdir,
        start_timeout_s=120,
    )
    return process, f"http://127.0.0.1:{port}"
