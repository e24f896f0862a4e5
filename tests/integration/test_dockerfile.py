"""`langgraph dockerfile` turns our langgraph.json into a server image's Dockerfile.

No Docker engine runs here, so only the generation is tested: the CLI accepts the config,
writes a Dockerfile on the LangGraph API base image for our Python version, installs this
repo as the local package, registers the ``swarm`` graph (``LANGSERVE_GRAPHS``) at a path
that exists in the repo and holds the compiled graph, and configures the server's checkpointer
(``LANGGRAPH_CHECKPOINTER``) as our PostgreSQL one, at a path that exists in the repo.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from langgraph.graph.state import CompiledStateGraph

from app import checkpointer
from graphs import swarm

ROOT = Path(__file__).resolve().parents[2]
LANGGRAPH = Path(sys.executable).with_name("langgraph")
OFFLINE_ENV = {
    "LANGGRAPH_CLI_NO_ANALYTICS": "1",
    "LANGGRAPH_NO_VERSION_CHECK": "true",
    "LANGSMITH_TRACING": "false",
}


def generate(tmp_path: Path) -> str:
    """Run the CLI on the repo's langgraph.json (outside the repo) and return the Dockerfile."""
    target = tmp_path / "Dockerfile"
    done = subprocess.run(
        [str(LANGGRAPH), "dockerfile", "-c", str(ROOT / "langgraph.json"), str(target)],
        cwd=tmp_path,
        env={**os.environ, **OFFLINE_ENV},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert target.is_file(), done.stdout + done.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["Dockerfile"]
    return target.read_text(encoding="utf-8")


def env_json(dockerfile: str, name: str) -> object:
    match = re.search(rf"^ENV {name}='(.*)'$", dockerfile, re.MULTILINE)
    assert match, f"no ENV {name} line in:\n{dockerfile}"
    return json.loads(match.group(1))


def test_dockerfile_uses_the_api_image_and_installs_this_repo(tmp_path: Path) -> None:
    config = json.loads((ROOT / "langgraph.json").read_text(encoding="utf-8"))
    dockerfile = generate(tmp_path)
    lines = dockerfile.splitlines()
    assert lines[0] == f"FROM langchain/langgraph-api:{config['python_version']}"
    deps = f"/deps/{ROOT.name}"
    assert f"ADD . {deps}" in lines  # the build context is the repo root
    assert "-e ." in dockerfile  # installed as a package, with pyproject's dependencies
    assert f"WORKDIR {deps}" in lines


def test_dockerfile_registers_the_swarm_graph_at_a_real_path(tmp_path: Path) -> None:
    config = json.loads((ROOT / "langgraph.json").read_text(encoding="utf-8"))
    graphs = env_json(generate(tmp_path), "LANGSERVE_GRAPHS")
    assert isinstance(graphs, dict) and set(graphs) == set(config["graphs"]) == {"swarm"}

    path, _, attribute = str(graphs["swarm"]).rpartition(":")
    prefix = f"/deps/{ROOT.name}/"
    assert path.startswith(prefix), graphs
    source = ROOT / path.removeprefix(prefix)
    assert source == ROOT / "graphs" / "swarm.py" and source.is_file()

    compiled = getattr(swarm, attribute)
    assert isinstance(compiled, CompiledStateGraph) and compiled.name == "swarm"


def test_dockerfile_configures_our_postgres_checkpointer(tmp_path: Path) -> None:
    config = env_json(generate(tmp_path), "LANGGRAPH_CHECKPOINTER")
    assert isinstance(config, dict) and set(config) == {"path"}, config
    path, _, attribute = str(config["path"]).rpartition(":")
    prefix = f"/deps/{ROOT.name}/"
    assert path.startswith(prefix), config
    assert ROOT / path.removeprefix(prefix) == ROOT / "app" / "checkpointer.py"
    assert getattr(checkpointer, attribute) is checkpointer.checkpointer
