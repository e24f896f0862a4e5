"""A gateway with fake vLLM backends started as real processes on free ports.

:func:`live_gateway` serves it in the test's event loop (uvicorn on a free port), so a ledger
observer sees every change of the accounting as it happens and a sampler scans ``/proc`` for
the fake servers that are really alive (:func:`live_fakes`); :func:`gateway_process` runs it as
``python -m runtime.gateway.cli`` instead. The servers a test starts carry its ``tag`` (the
fixture in ``tests/unit/conftest.py``).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import uvicorn
import yaml

from runtime.catalog import load_catalog
from runtime.gateway.ledger import LedgerSnapshot
from runtime.gateway.lock import LOCK_DIR_ENV
from runtime.gateway.server import serve_config
from runtime.gateway.service import GatewayService, prepare
from runtime.process import ManagedProcess
from runtime.provision import MANIFEST
from tests.fakes import MODEL_SERVER, fake_command
from tests.support import ROOT
from tests.support.network import allowed_port
from tests.support.processes import command_lines

MB = 10**6
FAKE_OPTIONS = (
    "load_time",
    "token_rate",
    "latency",
    "tokens",
    "answers",
    "gpu_bytes",
    "sim_gpu_dir",
    "gpu_context_bytes",
)
"""Options of :func:`fake_model` that go to the fake server's command line."""
TOKEN = "gw-token-0123456789abcdef"
"""The bearer token of :func:`with_token_file`."""


def fake_model(name: str, tag: str, *, footprint: int = 600 * MB, **opts: Any) -> dict[str, Any]:
    """A `command` model running the fake vLLM server, tagged ``tag``.

    ``opts`` are the server's options (:data:`FAKE_OPTIONS`) and the model's config keys;
    ``swap="sleep"`` also starts the server in sleep mode.
    """
    options = {key: opts.pop(key) for key in FAKE_OPTIONS if key in opts}
    args = fake_command(
        footprint=footprint, tag=tag, sleep_mode=opts.get("swap") == "sleep", **options
    )
    return {
        "name": name,
        "backend": "command",
        "command": args,
        "footprint": footprint,
        "load_estimate_s": 0.5,
        **opts,
    }


def write_config(
    tmp_path: Path, models: list[dict[str, Any]], budget: int, **scheduling: Any
) -> Path:
    config = {
        "device": scheduling.pop("device", "cpu"),
        "state_dir": str(tmp_path / "state"),
        "budget": {"bytes": budget},
        "scheduling": {"watch_interval_s": 0.2, **scheduling},
        "models": models,
    }
    path = tmp_path / "gateway.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def live_fakes(tag: str) -> dict[int, int]:
    """pid -> declared footprint of every live fake server carrying ``tag``."""
    found = {}
    for pid, argv in command_lines().items():
        if str(MODEL_SERVER).encode() in argv and tag.encode() in argv:
            found[pid] = int(argv[argv.index(b"--footprint") + 1])
    return found


@dataclass
class Live:
    """A gateway served in this event loop, and what the watchers saw."""

    service: GatewayService
    url: str
    http: httpx.AsyncClient
    tag: str
    worst_ledger: int = 0
    worst_real: int = 0
    most_in_flight: int = 0
    snapshots: int = 0
    violations: list[str] = field(default_factory=list)

    @property
    def budget(self) -> int:
        return self.service.ledger.device_budget

    def observe(self, snap: LedgerSnapshot) -> None:
        self.snapshots += 1
        self.worst_ledger = max(self.worst_ledger, snap.device_used)
        if snap.device_used > snap.device_budget:
            self.violations.append(f"ledger {snap.device_used} after {snap.change}")

    async def sample(self) -> None:
        while True:
            in_flight = max(slot.in_flight for slot in self.service.slots.values())
            self.most_in_flight = max(self.most_in_flight, in_flight)
            real = sum(live_fakes(self.tag).values())
            self.worst_real = max(self.worst_real, real)
            if real > self.budget:
                self.violations.append(f"live servers hold {real} bytes")
            await asyncio.sleep(0.02)

    async def chat(self, model: str, **body: Any) -> httpx.Response:
        payload = {"model": model, "messages": [{"role": "user", "content": "hi"}], **body}
        return await self.http.post(f"{self.url}/v1/chat/completions", json=payload)

    async def running(self) -> dict[str, Any]:
        reply = await self.http.get(f"{self.url}/running")
        data: dict[str, Any] = reply.json()
        return data

    async def model_info(self, name: str) -> dict[str, Any]:
        models = (await self.running())["models"]
        info: dict[str, Any] = next(m for m in models if m["name"] == name)
        return info


class InLoopServer(uvicorn.Server):
    """uvicorn in the test's loop, leaving the process's signal handlers alone."""

    @contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


@asynccontextmanager
async def live_gateway(config: Path, tag: str) -> AsyncIterator[Live]:
    """The gateway of ``config`` served in this event loop; on exit, no fake server tagged
    ``tag`` may outlive it."""
    service = GatewayService(prepare(config), port_for=allowed_port)
    port = allowed_port()
    # the real server's settings: its h11 protocol with read timeouts, its connection cap
    server = InLoopServer(
        serve_config(service, "127.0.0.1", port, log_level="warning", lifespan="on")
    )
    serving = asyncio.create_task(server.serve())
    while not server.started:
        assert not serving.done(), "the gateway did not start"
        await asyncio.sleep(0.01)
    http = httpx.AsyncClient(timeout=60, trust_env=False, limits=httpx.Limits(max_connections=200))
    live = Live(service, f"http://127.0.0.1:{port}", http, tag)
    service.ledger.observers.append(live.observe)
    sampler = asyncio.create_task(live.sample())
    try:
        yield live
    finally:
        sampler.cancel()
        await http.aclose()
        server.should_exit = True
        await serving
        assert not live_fakes(tag), "a fake server outlived the gateway"


def with_token_file(config: Path) -> Path:
    """The config, guarded by a token in a file next to it."""
    (config.parent / "token").write_text(f"{TOKEN}\n")
    raw = yaml.safe_load(config.read_text())
    raw["auth"] = {"token_file": "token"}
    config.write_text(yaml.safe_dump(raw))
    return config


@contextmanager
def gateway_process(config: Path, log: Path) -> Iterator[ManagedProcess]:
    """``python -m runtime.gateway.cli`` on a free port, in its own process group.

    Its device lock is in the test's lock directory (``EDGESWARM_LOCK_DIR``, set by the
    ``gateway_locks`` fixtures of the unit and integration tests), else in ``locks`` next to
    ``config``: never in the machine-wide one.
    """
    port = allowed_port()
    command = [sys.executable, "-m", "runtime.gateway.cli", "--config", str(config)]
    env = dict(os.environ)
    env.setdefault(LOCK_DIR_ENV, str(config.parent / "locks"))
    process = ManagedProcess(
        "gateway",
        [*command, "--port", str(port)],
        health_url=f"http://127.0.0.1:{port}/health",
        log_path=log,
        env=env,
        start_timeout_s=60,
        cwd=ROOT,
    )
    with process:
        yield process


def fake_pulled(models_dir: Path, name: str, weights: int) -> None:
    """A pulled catalogue model ``name`` in ``models_dir`` whose weights take ``weights`` bytes
    (zeros: enough for the footprint estimates, nothing to serve)."""
    entry = load_catalog().get(name)
    path = models_dir / name
    path.mkdir(parents=True)
    manifest = {"gguf_sha256": entry.gguf_sha256, "dtype": entry.dtype}
    (path / MANIFEST).write_text(json.dumps(manifest))
    (path / "config.json").write_text("{}")
    (path / "model.safetensors").write_bytes(b"\0" * weights)
