"""The embedded gateway: started for one run when no gateway URL is configured, then stopped.

:func:`embedded_gateway` writes a gateway config for the catalogue models a run needs (from
the model store), starts ``python -m runtime.gateway.cli`` as a managed process in its own
process group on a free port, waits for ``/health`` and yields the OpenAI-compatible base URL.
On exit, on an error or on Ctrl-C it stops the gateway, which stops every vLLM server it
started. If another gateway already owns the device and serves every model the run needs,
that one is used instead (and left running; the run's API key is its bearer token). The
embedded gateway listens on loopback only and never inherits ``EDGESWARM_GATEWAY_TOKEN``: the
run that started it is its only intended client.

Footprints are estimates from the weights on disk: on CPU a vLLM server's proportional set size
is dominated by the server itself (measured: 3.2 GB for SmolLM2-135M with a 1 GiB KV cache,
6.1 GB for Qwen2.5-Coder-0.5B with 2 GiB), so the estimate is a fixed server overhead plus
1.5x the weights plus the KV cache, which errs on the safe side of both measurements.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import yaml

from runtime.catalog import Catalog, load_catalog
from runtime.endpoint import ModelNotPulledError, list_models
from runtime.gateway.config import DEFAULT_TOKEN_ENV
from runtime.gateway.lock import (
    DeviceBusyError,
    LockHolder,
    device_key,
    is_locked,
    lock_path,
    read_holder,
)
from runtime.logs import get_logger
from runtime.process import ManagedProcess, free_port, process_alive
from runtime.provision import ModelStore
from runtime.settings import Device, Settings
from runtime.vllm import detect_device

GiB = 2**30
CPU_SERVER_OVERHEAD = int(2.5 * GiB)
CUDA_RUNTIME_OVERHEAD = 2 * GiB
DEFAULT_RAM_FRACTION = 0.5
GATEWAY_START_TIMEOUT_S = 60.0
GATEWAY_STOP_TIMEOUT_S = 60.0
_log = get_logger("gateway.embedded")


def estimate_footprint(weights_bytes: int, device: Device, cpu_kvcache_gib: int) -> int:
    """Bytes one vLLM server for weights of this size holds while loaded."""
    if device is Device.CUDA:
        return int(weights_bytes * 1.2) + CUDA_RUNTIME_OVERHEAD
    return CPU_SERVER_OVERHEAD + int(weights_bytes * 1.5) + cpu_kvcache_gib * GiB


_BYTES_PER_PARAMETER = {"bfloat16": 2, "bf16": 2, "float16": 2, "half": 2, "fp16": 2}
_BYTES_PER_PARAMETER.update({"float32": 4, "float": 4, "fp32": 4})


def served_weights(weights_bytes: int, stored_dtype: str, extra_args: Sequence[str]) -> int:
    """Bytes of weights the server holds, given its extra arguments.

    ``--dtype`` may cast the stored weights: float32 doubles a bfloat16 checkpoint (the faster
    choice for batched work on CPUs without AVX-512 BF16).
    """
    wanted = None
    for index, arg in enumerate(extra_args):
        if arg == "--dtype" and index + 1 < len(extra_args):
            wanted = extra_args[index + 1]
        elif arg.startswith("--dtype="):
            wanted = arg.split("=", 1)[1]
    stored = _BYTES_PER_PARAMETER.get(stored_dtype)
    served = _BYTES_PER_PARAMETER.get(wanted or "")
    if stored is None or served is None:
        return weights_bytes  # "auto", or a dtype we do not know: as stored
    return weights_bytes * served // stored


def _model_entry(name: str, weights: int, settings: Settings, device: Device) -> dict[str, Any]:
    extra = list(settings.vllm_extra_args)
    footprint = estimate_footprint(weights, device, settings.cpu_kvcache_gib)
    entry: dict[str, Any] = {
        "name": name,
        "backend": "vllm",
        "model": name,
        "footprint": footprint,
        "max_model_len": settings.max_model_len,
        "cpu_kvcache_gib": settings.cpu_kvcache_gib,
        "start_timeout_s": settings.server_start_timeout_s,
    }
    if device is Device.CUDA:
        # Swap warm through sleep mode (level 1 keeps the weights in host RAM); the gateway
        # gives each server its footprint's share of the GPU (--gpu-memory-utilization).
        entry.update(
            swap="sleep",
            sleep_level=1,
            sleep_footprint=weights,
            sleep_device_footprint=min(CUDA_RUNTIME_OVERHEAD, footprint),
        )
    entry["extra_args"] = extra
    return entry


def embedded_config(
    settings: Settings,
    models: Sequence[str],
    *,
    device: Device,
    budget_bytes: int | None = None,
    catalog: Catalog | None = None,
) -> dict[str, Any]:
    """The gateway config (as YAML data) for catalogue ``models`` pulled into the store.

    Raises:
        ModelNotPulledError: a model is not in the model store yet.
    """
    catalog = catalog or load_catalog()
    store = ModelStore(settings.models_dir)
    entries = []
    for name in dict.fromkeys(models):
        local = store.describe(catalog.get(name))
        if not local.ready:
            raise ModelNotPulledError(
                f"model {name} is not pulled into {settings.models_dir}; "
                f"run `edgeswarm models pull {name}`"
            )
        weights = served_weights(local.size_bytes, local.entry.dtype, settings.vllm_extra_args)
        entries.append(_model_entry(name, weights, settings, device))
    budget: dict[str, Any]
    if budget_bytes is not None:
        budget = {"bytes": budget_bytes}
    elif device is Device.CUDA:
        budget = {"gpu_memory": "total", "reserve": GiB}
    else:
        budget = {"ram_fraction": DEFAULT_RAM_FRACTION}
    return {
        "device": str(device),
        "state_dir": str(settings.state_dir),
        "models_dir": str(settings.models_dir),
        "budget": budget,
        "scheduling": {"request_timeout_s": settings.request_timeout_s},
        "models": entries,
    }


_EMBEDDED_CONFIG = re.compile(r"embedded-(?P<owner>\d+)-\d+\.yaml$")
RELEASE_WAIT_S = GATEWAY_STOP_TIMEOUT_S + 15.0
"""How long a new run waits for a dying embedded gateway to give the device up."""


def dying_reason(holder: LockHolder) -> str | None:
    """Why the lock's holder is on its way out, or None while it is a live gateway.

    An embedded gateway is started for one run (its config is ``embedded-<owner pid>-<port>
    .yaml``) and stops when that run's process goes; after a crash it still holds the device
    for the seconds it takes to stop its model servers.
    """
    if not process_alive(holder.pid, None):
        return f"gateway pid {holder.pid} has exited"
    match = _EMBEDDED_CONFIG.search(holder.config)
    if match and not process_alive(int(match["owner"]), None):
        return f"the run that started it (pid {match['owner']}) has exited, so it is stopping"
    return None


def _wait_for_release(path: Path, holder: LockHolder, why: str, device: Device) -> None:
    """Wait (bounded) until a dying gateway has released ``path``; raise if it does not."""
    _log.warning("gateway_releasing", pid=holder.pid, reason=why, wait_s=RELEASE_WAIT_S)
    sys.stderr.write(
        f"edgeswarm: waiting for the previous gateway (pid {holder.pid}: {why}) to give device "
        f"{device} up (at most {RELEASE_WAIT_S:.0f} s)\n"
    )
    deadline = time.monotonic() + RELEASE_WAIT_S
    while is_locked(path):
        if time.monotonic() > deadline:
            raise DeviceBusyError(
                f"gateway pid {holder.pid} still holds device {device} {RELEASE_WAIT_S:.0f} s "
                f"after {why}; stop it (kill {holder.pid}) and run again. Lock file: {path}"
            )
        time.sleep(0.2)


def running_gateway(settings: Settings, device: Device, models: Sequence[str]) -> str | None:
    """The base URL of a gateway that owns ``device`` and serves ``models``, if any.

    A gateway that is stopping (its run crashed, or it exited) is waited for, bounded, and
    then None is returned: the caller starts its own.

    Raises:
        DeviceBusyError: a live gateway owns the device and does not serve every model (or
            does not answer), or a dying one did not let go in time.
    """
    path = lock_path(settings.state_dir, device_key(device))
    if not is_locked(path):
        return None
    holder = read_holder(path)
    if holder is not None and (why := dying_reason(holder)) is not None:
        _wait_for_release(path, holder, why, device)
        return None
    served: set[str] = set()
    if holder is not None:
        url = f"{holder.url}/v1"
        served = set(list_models(url, api_key=settings.api_key, timeout_s=5.0, trust_env=False))
    missing = sorted(set(models) - served)
    if holder is None or missing:
        where = f"pid {holder.pid} at {holder.url}" if holder else "an unknown process"
        if holder is not None and not served:
            cause = (
                "does not list its models: it does not answer, or it wants a bearer token "
                "(set EDGESWARM_API_KEY to it)"
            )
        else:
            cause = f"does not serve {', '.join(missing) or 'the requested models'}"
        raise DeviceBusyError(
            f"another edgeswarm gateway ({where}) owns device {device} and {cause}; add the "
            "models to its config, stop it, or set EDGESWARM_BASE_URL to a gateway that serves "
            "them"
        )
    _log.info("gateway_reused", url=holder.url, pid=holder.pid, models=list(models))
    return f"{holder.url}/v1"


@contextlib.contextmanager
def embedded_gateway(
    settings: Settings,
    models: list[str],
    *,
    budget_bytes: int | None = None,
    start_timeout_s: float = GATEWAY_START_TIMEOUT_S,
) -> Iterator[str]:
    """Run a gateway for ``models`` for the duration of the block; yields its ``/v1`` URL."""
    device = detect_device(settings.device)
    reused = running_gateway(settings, device, models)
    if reused is not None:
        yield reused
        return
    config = embedded_config(settings, models, device=device, budget_bytes=budget_bytes)
    port = free_port()
    path = settings.state_dir / "gateway" / f"embedded-{os.getpid()}-{port}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(config, sort_keys=False), "utf-8")
    process = ManagedProcess(
        "gateway",
        _command(path, port),
        health_url=f"http://127.0.0.1:{port}/health",
        log_path=settings.log_dir() / f"gateway-{port}.log",
        env={k: v for k, v in os.environ.items() if k != DEFAULT_TOKEN_ENV},
        start_timeout_s=start_timeout_s,
        stop_timeout_s=GATEWAY_STOP_TIMEOUT_S,
        die_with_parent=True,
    )
    try:
        process.start()
        _log.info("gateway_started", url=f"http://127.0.0.1:{port}", models=list(models))
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        process.stop()
        path.unlink(missing_ok=True)


def _command(config: Path, port: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "runtime.gateway.cli",
        "--config",
        str(config),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
