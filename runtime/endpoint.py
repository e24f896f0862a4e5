"""Model endpoints: the embedded vLLM server, and servers registered for reuse.

``edgeswarm serve`` registers the model it serves; ``find_running`` finds it again for a run
(see ``graphs.endpoints.swarm_endpoint`` for the order in which a run picks its endpoint).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

import httpx

from runtime.catalog import Catalog, load_catalog
from runtime.logs import get_logger
from runtime.provision import ModelStore
from runtime.settings import Settings
from runtime.vllm import VLLMServer, VLLMSpec, detect_device

_log = get_logger("endpoint")


class EndpointUnreachableError(RuntimeError):
    """The configured OpenAI-compatible server does not answer, or refuses our key."""


def check_reachable(base_url: str, *, api_key: str | None = None, timeout_s: float = 10.0) -> None:
    """Fail fast, with what to do, when ``base_url`` does not answer or refuses the key.

    Any other answer (a server without ``/models``, say) is left to the run itself.

    Raises:
        EndpointUnreachableError: no connection, no answer in time, or 401/403.
    """
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else None
    try:
        reply = httpx.get(f"{base_url}/models", headers=headers, timeout=timeout_s)
    except httpx.HTTPError as err:
        raise EndpointUnreachableError(
            f"the server at {base_url} does not answer ({type(err).__name__}: {err}); start "
            "it, or point --base-url / EDGESWARM_BASE_URL at one that runs"
        ) from None
    if reply.status_code in (401, 403):
        raise EndpointUnreachableError(
            f"the server at {base_url} refused the API key ({reply.status_code}); set "
            "EDGESWARM_API_KEY to its token"
        )


class ModelNotPulledError(RuntimeError):
    """The embedded model is not provisioned yet."""


@dataclass(frozen=True)
class Endpoint:
    """An OpenAI-compatible API root and the model name to request there."""

    base_url: str
    model: str
    api_key: str = "EMPTY"
    owned: bool = False
    """True when this process started the server and will stop it."""


@dataclass(frozen=True)
class ServerRecord:
    """A server started by ``edgeswarm serve``, as registered for reuse."""

    pid: int
    base_url: str
    model: str


def _registry(settings: Settings) -> Path:
    return settings.state_dir / "servers"


def register(settings: Settings, record: ServerRecord) -> Path:
    """Announce a served model so other runs can reuse it."""
    path = _registry(settings) / f"{record.model}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(asdict(record)), "utf-8")
    tmp.replace(path)
    return path


def unregister(path: Path) -> None:
    """Withdraw a registration (the server is stopping)."""
    path.unlink(missing_ok=True)


def find_running(settings: Settings, model: str) -> Endpoint | None:
    """A live registered server for ``model``, or None (stale records are removed)."""
    path = _registry(settings) / f"{model}.json"
    try:
        record = ServerRecord(**json.loads(path.read_text("utf-8")))
    except (OSError, ValueError, TypeError):
        return None
    if _serves(record):
        _log.info("server_reused", model=model, base_url=record.base_url, pid=record.pid)
        return Endpoint(record.base_url, record.model, owned=False)
    unregister(path)
    return None


def list_models(
    base_url: str, *, api_key: str | None = None, timeout_s: float = 10.0, trust_env: bool = True
) -> list[str]:
    """Model names an OpenAI-compatible API root lists at ``/models``; [] when it does not."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else None
    try:
        reply = httpx.get(
            f"{base_url}/models", headers=headers, timeout=timeout_s, trust_env=trust_env
        )
        items = reply.json().get("data", [])
        return [str(item["id"]) for item in items if item.get("id") is not None]
    except (httpx.HTTPError, ValueError, TypeError, AttributeError):
        return []


def _serves(record: ServerRecord) -> bool:
    try:
        os.kill(record.pid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return record.model in list_models(record.base_url, timeout_s=3.0, trust_env=False)


def embedded_server(
    settings: Settings,
    *,
    catalog: Catalog | None = None,
    port: int | None = None,
    die_with_parent: bool = True,
) -> VLLMServer:
    """A (not yet started) vLLM server for the settings' model from the local store."""
    entry = (catalog or load_catalog()).get(settings.model)
    store = ModelStore(settings.models_dir)
    if not store.is_ready(entry):
        raise ModelNotPulledError(
            f"model {entry.name} is not in {settings.models_dir}; run `edgeswarm models pull`"
        )
    spec = VLLMSpec(
        model_dir=store.path_for(entry.name),
        served_name=entry.name,
        device=detect_device(settings.device),
        max_model_len=settings.max_model_len,
        cpu_kvcache_gib=settings.cpu_kvcache_gib,
        extra_args=tuple(settings.vllm_extra_args),
    )
    return VLLMServer(
        spec,
        settings.log_dir(),
        port=port,
        start_timeout_s=settings.server_start_timeout_s,
        die_with_parent=die_with_parent,
    )
