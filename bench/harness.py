"""Processes and configs for the gateway benchmark: gateways, vLLM servers, fake backends.

Every process runs as a :class:`runtime.process.ManagedProcess` (own process group,
health-checked, stopped on exit, error and Ctrl-C, and SIGTERM'd if the benchmark dies). A
gateway runs as ``python -m runtime.gateway.cli`` with JSON logs, so its structured events
(``load_end``, ``unload``, ``sleep``, ``wake``, ``drain``) can be read back from its log file.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import httpx
import yaml

from runtime.process import ManagedProcess, free_port
from runtime.settings import Device
from runtime.vllm import VLLMServer, VLLMSpec
from tests.fakes import fake_command

ROOT = Path(__file__).resolve().parent.parent
MB = 10**6
GiB = 2**30
PortFor = Callable[[], int]
GATEWAY_START_TIMEOUT_S = 90.0
GATEWAY_STOP_TIMEOUT_S = 120.0
# The CPU features that decide vLLM CPU's speed: bfloat16 matrix products in hardware or not.
MATMUL_FLAGS = ("avx2", "avx512f", "avx512_bf16", "amx_bf16")


def cpu_matmul_flags() -> list[str]:
    """Which of :data:`MATMUL_FLAGS` this CPU has ([] when /proc/cpuinfo cannot be read)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("flags"):
                present = set(line.split(":", 1)[1].split())
                return [flag for flag in MATMUL_FLAGS if flag in present]
    except OSError:
        pass
    return []


def bench_dtype(flags: list[str] | None = None) -> tuple[str, str]:
    """The dtype of the benchmark's own SmolLM2 servers on this CPU, and why.

    An x86 CPU without bfloat16 matrix instructions emulates them: vLLM CPU in float32 there
    prefills 4.7x and batches 8 streams 2.3x faster (``python -m bench.cpu_dtype``, 2 cores,
    2026-12-01), so the parts that compare two arms on one server get more work done per
    minute. Elsewhere the stored bfloat16.
    """
    found = cpu_matmul_flags() if flags is None else flags
    if "avx2" in found and not {"avx512_bf16", "amx_bf16"} & set(found):
        return "float32", "this CPU has no bfloat16 matrix instructions (avx512_bf16, amx_bf16)"
    return "bfloat16", "the stored weights' dtype"


@dataclass(frozen=True)
class FakeSpec:
    """How a fake vLLM backend behaves: load time, footprint, answer length and speed."""

    load_time_s: float = 2.0
    tokens: int = 32
    token_rate: float = 128.0
    footprint: int = 600 * MB

    def as_dict(self) -> dict[str, Any]:
        """The spec as plain data for the results file."""
        return {
            "load_time_s": self.load_time_s,
            "tokens": self.tokens,
            "token_rate": self.token_rate,
            "footprint": self.footprint,
        }


def fake_model(name: str, spec: FakeSpec, *, sleep: bool = False) -> dict[str, Any]:
    """A ``command`` model running ``tests/fakes/model_server.py`` (with sleep mode if asked)."""
    command = fake_command(
        load_time=spec.load_time_s,
        footprint=spec.footprint,
        tokens=spec.tokens,
        token_rate=spec.token_rate,
        sleep_mode=sleep,
    )
    entry: dict[str, Any] = {
        "name": name,
        "backend": "command",
        "command": command,
        "footprint": spec.footprint,
        "load_estimate_s": max(spec.load_time_s, 0.1),
        "start_timeout_s": 60,
    }
    if sleep:
        entry.update(swap="sleep", sleep_level=1, sleep_footprint=spec.footprint // 3)
    return entry


def vllm_model(
    name: str, footprint: int, *, max_model_len: int, kvcache_gib: int
) -> dict[str, Any]:
    """A ``vllm`` model the gateway starts and stops (CPU build)."""
    return {
        "name": name,
        "backend": "vllm",
        "model": name,
        "footprint": footprint,
        "max_model_len": max_model_len,
        "cpu_kvcache_gib": kvcache_gib,
        "load_estimate_s": 30,
        "start_timeout_s": 300,
    }


def remote_model(name: str, api_base: str) -> dict[str, Any]:
    """A ``remote`` model: the gateway only routes to ``api_base`` (same name upstream)."""
    return {"name": name, "backend": "remote", "url": api_base}


class ServerPool:
    """vLLM servers that several parts of one run share, each started once.

    A start costs a minute on a slow CPU, and the parts that compare two arms on one server
    need nothing but a server of the same model and sizes; the prefix-cache part empties the
    cache itself (:func:`reset_prefix_cache`). Stopped by :meth:`close`, also on error.
    """

    def __init__(self) -> None:
        self._servers: dict[tuple[str, int, int], VLLMServer] = {}
        self.dtype, self.dtype_why = bench_dtype()

    def get(
        self, name: str, work: Workspace, *, max_model_len: int, kvcache_gib: int, port_for: PortFor
    ) -> VLLMServer:
        """The pool's server for this model and sizes, started on first use."""
        key = (name, max_model_len, kvcache_gib)
        if key not in self._servers:
            server = _server(name, work, max_model_len, kvcache_gib, port_for, self.dtype)
            server.start()
            self._servers[key] = server
        return self._servers[key]

    def close(self) -> None:
        """Stop every server of the pool."""
        while self._servers:
            _, server = self._servers.popitem()
            server.stop()


@dataclass(frozen=True)
class Workspace:
    """Where one benchmark run keeps configs, the gateway's state and every log."""

    root: Path
    models_dir: Path
    servers: ServerPool | None = None
    """Shared vLLM servers (:func:`vllm_server` then starts each only once); None: one each."""

    @property
    def state_dir(self) -> Path:
        """The gateways' state dir (device lock, server logs), private to this run."""
        return self.root / "state"

    def file(self, name: str) -> Path:
        """A path under the workspace (parents created)."""
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        return path


def write_config(
    work: Workspace,
    name: str,
    models: list[dict[str, Any]],
    *,
    budget: int,
    device: str = "cpu",
    **scheduling: Any,
) -> Path:
    """Write a gateway config for ``models`` under ``budget`` bytes; returns its path."""
    config = {
        "device": device,
        "state_dir": str(work.state_dir),
        "models_dir": str(work.models_dir),
        "budget": {"bytes": budget},
        "scheduling": scheduling,
        "models": models,
    }
    path = work.file(f"{name}.yaml")
    path.write_text(yaml.safe_dump(config, sort_keys=False), "utf-8")
    return path


@dataclass(frozen=True)
class Gateway:
    """A running gateway process: its URLs and its JSON log."""

    url: str
    log_path: Path

    @property
    def api_base(self) -> str:
        """The OpenAI-compatible root, ``http://127.0.0.1:PORT/v1``."""
        return f"{self.url}/v1"

    def running(self) -> dict[str, Any]:
        """``GET /running``: states, swaps, budget violations."""
        reply = httpx.get(f"{self.url}/running", timeout=30, trust_env=False)
        reply.raise_for_status()
        data: dict[str, Any] = reply.json()
        return data

    def metrics(self) -> str:
        """``GET /metrics`` (Prometheus text)."""
        reply = httpx.get(f"{self.url}/metrics", timeout=30, trust_env=False)
        reply.raise_for_status()
        return reply.text


@contextmanager
def gateway(config: Path, log_path: Path, port_for: PortFor = free_port) -> Iterator[Gateway]:
    """Run ``python -m runtime.gateway.cli`` on ``config``; stopped (with its servers) on exit."""
    port = port_for()
    command = [sys.executable, "-m", "runtime.gateway.cli", "--config", str(config)]
    command += ["--host", "127.0.0.1", "--port", str(port), "--log-format", "json"]
    process = ManagedProcess(
        f"bench-gateway:{port}",
        command,
        health_url=f"http://127.0.0.1:{port}/health",
        log_path=log_path,
        start_timeout_s=GATEWAY_START_TIMEOUT_S,
        stop_timeout_s=GATEWAY_STOP_TIMEOUT_S,
        die_with_parent=True,
        cwd=ROOT,
    )
    with process:
        yield Gateway(f"http://127.0.0.1:{port}", log_path)


@contextmanager
def gateway_in_front(
    name: str, api_base: str, work: Workspace, tag: str, port_for: PortFor = free_port
) -> Iterator[Gateway]:
    """A gateway serving the server at ``api_base`` as the ``remote`` model ``name``.

    Both arms of a comparison then hit the very same server process, so a ratio isolates
    the gateway's own cost.
    """
    config = write_config(work, tag, [remote_model(name, api_base)], budget=GiB)
    with gateway(config, work.file(f"logs/gateway-{tag}.log"), port_for) as gw:
        yield gw


@contextmanager
def vllm_server(
    name: str,
    work: Workspace,
    *,
    max_model_len: int,
    kvcache_gib: int,
    port_for: PortFor = free_port,
) -> Iterator[VLLMServer]:
    """A vLLM CPU server for the pulled model ``name``.

    The workspace's shared one if it has a pool (left running), else one of its own, stopped
    on exit.
    """
    if work.servers is not None:
        yield work.servers.get(
            name, work, max_model_len=max_model_len, kvcache_gib=kvcache_gib, port_for=port_for
        )
        return
    dtype, _ = bench_dtype()
    with _server(name, work, max_model_len, kvcache_gib, port_for, dtype) as server:
        yield server


class ServerSizes(Protocol):
    """A part's sizes that say how large a server it needs."""

    @property
    def max_model_len(self) -> int:
        """The server's context length, in tokens."""
        ...

    @property
    def kvcache_gib(self) -> int:
        """The server's KV cache, in GiB."""
        ...


def sized_server(
    name: str, sizes: ServerSizes, work: Workspace, port_for: PortFor = free_port
) -> AbstractContextManager[VLLMServer]:
    """:func:`vllm_server` for ``name`` at a part's ``sizes``."""
    return vllm_server(
        name,
        work,
        max_model_len=sizes.max_model_len,
        kvcache_gib=sizes.kvcache_gib,
        port_for=port_for,
    )


def _server(
    name: str,
    work: Workspace,
    max_model_len: int,
    kvcache_gib: int,
    port_for: PortFor,
    dtype: str,
) -> VLLMServer:
    spec = VLLMSpec(
        model_dir=work.models_dir / name,
        served_name=name,
        device=Device.CPU,
        max_model_len=max_model_len,
        cpu_kvcache_gib=kvcache_gib,
        extra_args=("--dtype", dtype),
        env={"VLLM_SERVER_DEV_MODE": "1"},  # /reset_prefix_cache (loopback only, as ever)
    )
    return VLLMServer(
        spec, work.state_dir / "logs", port=port_for(), start_timeout_s=300, die_with_parent=True
    )


def reset_prefix_cache(server: VLLMServer) -> None:
    """Empty the server's prefix cache (vLLM's dev-mode route), as a fresh server has it."""
    reply = httpx.post(
        f"{server.base_url.removesuffix('/v1')}/reset_prefix_cache", timeout=60, trust_env=False
    )
    if reply.status_code != 200:
        raise RuntimeError(f"vLLM refused to reset its prefix cache: {reply.status_code}")


def read_events(log_path: Path, names: set[str] | None = None) -> list[dict[str, Any]]:
    """The gateway's structured (JSON) log events, in order, optionally only ``names``."""
    events = []
    try:
        lines = log_path.read_text("utf-8", errors="replace").splitlines()
    except OSError:
        return []
    for line in lines:
        if not line.startswith("{"):
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(event, dict) and (names is None or event.get("event") in names):
            events.append(event)
    return events
