"""Process machinery: the servers behind the gateway's models, and nothing else.

A backend knows how to start, stop, sleep and wake one model's server and where its
OpenAI-compatible API is; it makes no decisions (when to do what belongs to the swap scheduler).

- :class:`ProcessBackend` runs a server the gateway starts and stops: vLLM through
  :class:`runtime.vllm.VLLMServer` (CPU or CUDA), or any server from a command line. A server
  restarted after a stop or a failure gets a fresh process on a fresh port.
- With ``swap: sleep`` (CUDA) it also sleeps and wakes the server through vLLM's sleep mode:
  ``POST /sleep?level=N``, ``POST /wake_up`` and ``GET /is_sleeping`` (the server runs with
  ``--enable-sleep-mode`` and ``VLLM_SERVER_DEV_MODE=1``); after a level-2 wake it reloads the
  weights and resets the prefix cache.
- :class:`RemoteBackend` is a fixed URL on another host: routed, never swapped, not counted.

A server the gateway starts inherits its environment less the gateway's bearer token, and a
vLLM server gets a fresh secret of its own (``VLLM_API_KEY``, out of its command line): vLLM
then answers its ``/v1`` routes only to the gateway, which sends the secret upstream, so the
server's loopback port is no way around the gateway's token. vLLM leaves its other routes
(``/health``, ``/metrics``, sleep mode's) unguarded.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import httpx

from runtime.gateway.config import (
    DEFAULT_TOKEN_ENV,
    CommandModelConfig,
    GatewayConfig,
    ModelConfig,
    RemoteModelConfig,
    VLLMModelConfig,
)
from runtime.logs import get_logger
from runtime.process import ManagedProcess, free_port
from runtime.settings import Device
from runtime.vllm import (
    GPU_MEMORY_FLAG,
    VLLMServer,
    VLLMSpec,
    gpu_share,
    sets_flag,
)

_SLEEP_CALL_TIMEOUT_S = 120.0
_log = get_logger("gateway")


class BackendError(RuntimeError):
    """A backend operation (start, sleep, wake) failed; the message says which and why."""


@dataclass(frozen=True)
class Launch:
    """A fresh, not yet started server process and the API root it will serve."""

    process: ManagedProcess
    api_base: str
    api_key: str | None = None
    """The secret the server requires on its ``/v1`` routes, if any."""


LaunchFactory = Callable[[], Launch]


class ProcessBackend:
    """A server process the gateway starts, stops and (with sleep mode) sleeps and wakes."""

    managed = True

    def __init__(
        self,
        name: str,
        launch: LaunchFactory,
        *,
        sleep_mode: bool = False,
        seeds_sampling: bool = True,
    ) -> None:
        self.name = name
        self.seeds_sampling = seeds_sampling
        """Whether the server takes a sampled request's seed; else the gateway drops it
        (:data:`runtime.vllm.CHUNKED_PREFILL_FLAG`)."""
        self.kind = "sleep" if sleep_mode else "process"
        self.sleep_mode = sleep_mode
        self.upstream_model = name
        self.api_key: str | None = None
        self._launch = launch
        self._process: ManagedProcess | None = None
        self.api_base = ""
        self.hung = False
        """Set when the watchdog found the server alive but unresponsive: stopped with KILL."""

    @property
    def pid(self) -> int | None:
        """The server's pid (also its process group id) while it runs."""
        return self._process.pid if self._process is not None else None

    @property
    def root(self) -> str:
        """The server root (``api_base`` without ``/v1``), for management routes."""
        return self.api_base.removesuffix("/v1")

    def alive(self) -> bool:
        """Whether the server process runs."""
        return self._process is not None and self._process.alive()

    def log_path(self) -> Path | None:
        """The server's log file, once started."""
        return self._process.log_path if self._process is not None else None

    async def start(self) -> None:
        """Start a fresh server and wait until it is healthy (cancellable)."""
        launch = self._launch()
        self._process, self.api_base = launch.process, launch.api_base
        self.hung = False
        self.api_key = launch.api_key
        task = asyncio.ensure_future(asyncio.to_thread(launch.process.start))
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            # The thread polls the process: killing the group ends its wait within a poll.
            pid = launch.process.pid
            if pid is not None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(pid, signal.SIGKILL)
            with contextlib.suppress(Exception):
                await task
            raise
        except Exception as err:
            raise BackendError(f"{self.name}: server did not start: {err}") from err

    async def stop(self) -> None:
        """Stop the server's whole process group (TERM, then KILL); safe when stopped."""
        process = self._process
        if process is not None:
            # a hung (or SIGSTOPped) server would sit out the TERM grace: kill it at once
            await asyncio.to_thread(process.stop, force=self.hung)

    async def sleep(self, client: httpx.AsyncClient, level: int) -> None:
        """Put the server to sleep at ``level`` and check that it sleeps."""
        await self._call(client, "POST", f"/sleep?level={level}")
        if not await self.is_sleeping(client):
            raise BackendError(f"{self.name}: /sleep returned but /is_sleeping says awake")

    async def wake(self, client: httpx.AsyncClient, level: int) -> None:
        """Wake the server; after a level-2 sleep reload the weights and reset the cache."""
        await self._call(client, "POST", "/wake_up")
        if level == 2:
            await self._call(client, "POST", "/collective_rpc", json={"method": "reload_weights"})
            await self._call(client, "POST", "/reset_prefix_cache")
        if await self.is_sleeping(client):
            raise BackendError(f"{self.name}: /wake_up returned but /is_sleeping says asleep")

    async def is_sleeping(self, client: httpx.AsyncClient) -> bool:
        """What the server says about its sleep state."""
        reply = await self._call(client, "GET", "/is_sleeping")
        return bool(reply.json().get("is_sleeping"))

    async def healthy(self, client: httpx.AsyncClient, timeout_s: float = 5.0) -> bool:
        """Whether the server answers its health route within ``timeout_s``."""
        if self._process is None:
            return False
        try:
            reply = await client.get(self._process.health_url, timeout=timeout_s)
        except httpx.HTTPError:
            return False
        return reply.status_code == 200

    def run_state(self) -> str:
        """The server process's state as the kernel reports it, "" when unknown.

        ``R`` running, ``S`` sleeping, ``T`` stopped, ``D`` in uninterruptible I/O...
        """
        pid = self.pid
        if pid is None:
            return ""
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return ""
        return stat.rsplit(")", 1)[-1].split()[0] if ")" in stat else ""

    async def _call(
        self, client: httpx.AsyncClient, method: str, path: str, json: object = None
    ) -> httpx.Response:
        try:
            reply = await client.request(
                method, self.root + path, json=json, timeout=_SLEEP_CALL_TIMEOUT_S
            )
        except httpx.HTTPError as err:
            raise BackendError(f"{self.name}: {method} {path} failed: {err!r}") from err
        if reply.status_code >= 400:
            raise BackendError(
                f"{self.name}: {method} {path} answered {reply.status_code}: {reply.text[:200]}"
            )
        return reply


class RemoteBackend:
    """A fixed OpenAI-compatible endpoint elsewhere; the gateway only routes to it."""

    managed = False
    kind = "remote"
    pid = None
    seeds_sampling = True
    """A remote server's own business: its seeds go to it as sent."""

    def __init__(self, config: RemoteModelConfig) -> None:
        self.name = config.name
        self.api_base = str(config.url).rstrip("/")
        self.upstream_model = config.served_name or config.name
        self.api_key = config.api_key


Backend = ProcessBackend | RemoteBackend


@dataclass(frozen=True)
class BackendContext:
    """What backends need from the gateway: device, directories, host."""

    device: Device
    models_dir: Path
    log_dir: Path
    gpu_index: int = 0
    gpu_total: int | None = None
    """Bytes of the GPU (NVML), to give each vLLM server its footprint's share of it."""
    host: str = "127.0.0.1"
    port_for: Callable[[], int] = free_port
    die_with_parent: bool = True
    """Servers get SIGTERM if the gateway dies without stopping them (a SIGKILL, a crash)."""
    shared_cores: bool = False
    """Several vLLM servers may compute on the same CPU cores at once (see
    :data:`runtime.vllm.SHARED_CORES_ENVIRONMENT`)."""
    private_env: tuple[str, ...] = (DEFAULT_TOKEN_ENV,)
    """Variables the servers must not inherit: the gateway's bearer token."""


def resolve_model_dir(entry: VLLMModelConfig, models_dir: Path) -> Path:
    """A vLLM model's directory: a path as given, or a catalogue name in ``models_dir``."""
    given = Path(entry.model).expanduser()
    return given if given.is_absolute() or "/" in entry.model else models_dir / entry.model


def _vllm_spec(entry: VLLMModelConfig, ctx: BackendContext) -> VLLMSpec:
    env = dict(entry.env)
    share = None
    if ctx.device is Device.CUDA:
        env.setdefault("CUDA_VISIBLE_DEVICES", str(ctx.gpu_index))
        if ctx.gpu_total:
            share = gpu_share(entry.footprint, ctx.gpu_total)
        elif not sets_flag(GPU_MEMORY_FLAG, entry.extra_args):
            _log.warning(
                "gpu_share_unknown",
                model=entry.name,
                reason="NVML gave no GPU size: vLLM takes its default 0.9 of the GPU; set "
                f"{GPU_MEMORY_FLAG} in the model's extra_args",
            )
    return VLLMSpec(
        model_dir=resolve_model_dir(entry, ctx.models_dir),
        served_name=entry.name,
        device=ctx.device,
        max_model_len=entry.max_model_len,
        cpu_kvcache_gib=entry.cpu_kvcache_gib,
        extra_args=tuple(entry.extra_args),
        sleep_mode=entry.swap == "sleep",
        host=ctx.host,
        env=env,
        shared_cores=ctx.shared_cores,
        gpu_memory_utilization=share,
        private_env=ctx.private_env,
    )


def _vllm_launch(entry: VLLMModelConfig, spec: VLLMSpec, ctx: BackendContext) -> LaunchFactory:
    own_key = _flag_value(API_KEY_FLAG, entry.extra_args) or entry.env.get(API_KEY_ENV)

    def launch() -> Launch:
        key = own_key or secrets.token_urlsafe(24)  # a fresh one for each server
        env = spec.env if own_key else {**spec.env, API_KEY_ENV: key}
        server = VLLMServer(
            replace(spec, env=env),
            ctx.log_dir,
            port=ctx.port_for(),
            start_timeout_s=entry.start_timeout_s,
            die_with_parent=ctx.die_with_parent,
        )
        return Launch(server, server.base_url, key)

    return launch


def _command_launch(entry: CommandModelConfig, ctx: BackendContext) -> LaunchFactory:
    def launch() -> Launch:
        port = ctx.port_for()
        command = [part.format(port=port, name=entry.name) for part in entry.command]
        inherited = {k: v for k, v in os.environ.items() if k not in ctx.private_env}
        env = {**inherited, **entry.env}
        if entry.swap == "sleep":
            env.setdefault("VLLM_SERVER_DEV_MODE", "1")
        process = ManagedProcess(
            f"{entry.backend}:{entry.name}",
            command,
            health_url=f"http://{ctx.host}:{port}{entry.health_path}",
            log_path=ctx.log_dir / f"{entry.name}-{port}.log",
            env=env,
            start_timeout_s=entry.start_timeout_s,
            stop_timeout_s=10.0,
            die_with_parent=ctx.die_with_parent,
        )
        return Launch(process, f"http://{ctx.host}:{port}/v1")

    return launch


API_KEY_FLAG = "--api-key"
API_KEY_ENV = "VLLM_API_KEY"


def _flag_value(flag: str, args: Sequence[str]) -> str | None:
    """The value given to ``flag`` in ``args`` (``--flag v`` or ``--flag=v``; the last wins)."""
    found = None
    for i, arg in enumerate(args):
        if arg == flag and i + 1 < len(args):
            found = args[i + 1]
        elif arg.startswith(flag + "="):
            found = arg.split("=", 1)[1]
    return found


def build_backend(entry: ModelConfig, ctx: BackendContext) -> Backend:
    """The backend for one configured model (nothing is started yet)."""
    if isinstance(entry, RemoteModelConfig):
        return RemoteBackend(entry)
    if isinstance(entry, VLLMModelConfig):
        if not (resolve_model_dir(entry, ctx.models_dir) / "config.json").is_file():
            raise FileNotFoundError(
                f"model {entry.name}: {resolve_model_dir(entry, ctx.models_dir)} is not a model "
                f"directory; run `edgeswarm models pull {entry.model}` or fix `model:`"
            )
        spec = _vllm_spec(entry, ctx)
        return ProcessBackend(
            entry.name,
            _vllm_launch(entry, spec, ctx),
            sleep_mode=entry.swap == "sleep",
            seeds_sampling=spec.seeds_sampling,
        )
    # A command's server is unknown: on CPU it may be a vLLM that chunks its prefills.
    return ProcessBackend(
        entry.name,
        _command_launch(entry, ctx),
        sleep_mode=entry.swap == "sleep",
        seeds_sampling=ctx.device is not Device.CPU,
    )


def build_backends(config: GatewayConfig, ctx: BackendContext) -> dict[str, Backend]:
    """Backends for every configured model, by name.

    On CPU, two or more vLLM models share the cores: their servers wait passively.
    """
    servers = sum(isinstance(entry, VLLMModelConfig) for entry in config.models)
    if ctx.device is Device.CPU and servers > 1:
        ctx = replace(ctx, shared_cores=True)
    private = dict.fromkeys((*ctx.private_env, DEFAULT_TOKEN_ENV, config.auth.token_env))
    ctx = replace(ctx, private_env=tuple(private))
    return {entry.name: build_backend(entry, ctx) for entry in config.models}
