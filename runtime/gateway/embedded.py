"""The embedded gateway: started for the runs that need it when no gateway URL is configured.

:func:`embedded_gateway` writes a gateway config for the catalogue models a run needs (from
the model store), starts ``python -m runtime.gateway.cli`` as a managed process in its own
process group on a free port, waits for ``/health`` and yields the OpenAI-compatible base URL.
If another gateway already owns the device and serves every model the run needs, that one is
used instead (the run's API key is its bearer token). The embedded gateway listens on
loopback only and never inherits ``EDGESWARM_GATEWAY_TOKEN``: runs on this machine are its
only intended clients.

One embedded gateway serves every run on the device that needs its models, and it runs while
any of them does. Each run that uses it holds a lease (:mod:`runtime.gateway.leases`): a file
in ``<state_dir>/gateway/embedded-<pid>-<port>.leases/`` that counts while the run's process
lives. A run that ends removes its lease, and stops the gateway (which stops every vLLM
server it started) only when no other live lease remains; otherwise it leaves the gateway to
the others, even when it started it. The gateway watches its leases itself and stops within
half a second of the last one ending, so a SIGKILLed run neither leaves it behind nor, when
others still use it, takes it away from them. Looking for a running gateway and starting one
happen under a start lock (:func:`runtime.gateway.lock.start_lock`): two runs started at the
same moment no longer both start a gateway (the second used to exit with code 3 on the device
lock, failing its run); the second waits, then leases the first's. The device lock and the
start lock live in the machine-wide lock directory (:func:`runtime.gateway.lock.lock_dir`), so
a run with another state directory finds, and leases, the running gateway too; the leases and
the config stay in the state directory of the run that started it.

Footprints are estimates from the weights on disk: on CPU a vLLM server's proportional set size
is dominated by the server itself (measured: 3.2 GB for SmolLM2-135M with a 1 GiB KV cache,
6.1 GB for Qwen2.5-Coder-0.5B with 2 GiB), so the estimate is a fixed server overhead plus
1.5x the weights plus the KV cache, which errs on the safe side of both measurements. The
weights are counted in the dtype the server will hold: on CPU :func:`runtime.cpu.choose_dtype`
(float32 on a CPU without bfloat16 instructions doubles a bfloat16 checkpoint).

On CPU the budget is :func:`cpu_budget`: half the RAM at least, and up to three quarters of it
when that much is free at start (less 2 GiB of headroom), so that the two default models stay
resident together on a 24 GB machine in either dtype (float32: about 8.6 + 5.6 GB). Where the
models asked for cannot all be resident at once, ``models_do_not_fit`` says so at start with
each footprint and the budget.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from runtime.catalog import Catalog, load_catalog
from runtime.cpu import choose_dtype
from runtime.endpoint import ModelNotPulledError, list_models
from runtime.gateway.budget import DEFAULT_RAM_FRACTION, system_ram
from runtime.gateway.config import DEFAULT_TOKEN_ENV, crowding_warning, format_bytes
from runtime.gateway.leases import Lease, live_leases, remove_leases, take_lease
from runtime.gateway.lock import (
    LOCK_DIR_ENV,
    DeviceBusyError,
    LockHolder,
    device_key,
    is_locked,
    lock_dir,
    lock_path,
    read_holder,
    start_lock,
)
from runtime.logs import get_logger
from runtime.process import ManagedProcess, free_port, process_alive, process_start, stop_group
from runtime.provision import ModelStore
from runtime.settings import Device, Settings
from runtime.vllm import detect_device

GiB = 2**30
CPU_SERVER_OVERHEAD = int(2.5 * GiB)
CUDA_RUNTIME_OVERHEAD = 2 * GiB
MAX_RAM_FRACTION = 0.75
"""CPU: and at most this share, when it is free at start."""
RAM_HEADROOM = 2 * GiB
"""CPU: what the budget leaves of the RAM free at start (the gateway, sandboxed test runs)."""
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


def available_ram() -> int | None:
    """``MemAvailable`` from ``/proc/meminfo`` in bytes; None when it cannot be read."""
    try:
        for line in Path("/proc/meminfo").read_text("utf-8").splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def cpu_budget(total: int, available: int | None) -> tuple[int, str]:
    """The embedded gateway's CPU budget from the RAM ``total`` and ``available`` at start.

    ``available`` less :data:`RAM_HEADROOM`, between :data:`DEFAULT_RAM_FRACTION` (the budget
    before, whatever is free) and :data:`MAX_RAM_FRACTION` of ``total``. On a 23.5 GiB machine
    with 22 GiB free: 17.7 GiB, room for both default models in float32 (13.3 GiB declared).
    """
    low, high = int(total * DEFAULT_RAM_FRACTION), int(total * MAX_RAM_FRACTION)
    free = high if available is None else available - RAM_HEADROOM
    budget = max(low, min(high, free))
    why = (
        f"{budget / total:.0%} of {format_bytes(total)} RAM: {format_bytes(free)} free at "
        f"start less {format_bytes(RAM_HEADROOM)} headroom, within "
        f"{DEFAULT_RAM_FRACTION:.0%}-{MAX_RAM_FRACTION:.0%} of the RAM"
    )
    return budget, why


def _model_entry(
    name: str, weights: int, settings: Settings, device: Device, extra: list[str]
) -> dict[str, Any]:
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
    extra = list(settings.vllm_extra_args)
    dtype = choose_dtype(device, extra)  # what the gateway's vLLM servers will choose too
    entries = []
    for name in dict.fromkeys(models):
        local = store.describe(catalog.get(name))
        if not local.ready:
            raise ModelNotPulledError(
                f"model {name} is not pulled into {settings.models_dir}; "
                f"run `edgeswarm models pull {name}`"
            )
        held = [*extra, *dtype.added_args]
        weights = served_weights(local.size_bytes, local.entry.dtype, held)
        entries.append(_model_entry(name, weights, settings, device, extra))
    budget: dict[str, Any]
    resolved: tuple[int, str] | None = None
    if budget_bytes is not None:
        budget = {"bytes": budget_bytes}
        resolved = budget_bytes, "the configured budget, EDGESWARM_GATEWAY_BUDGET_GIB"
    elif device is Device.CUDA:
        budget = {"gpu_memory": "total", "reserve": GiB}
    else:
        resolved = cpu_budget(system_ram(), available_ram())
        budget = {"bytes": resolved[0]}
    _log.info("embedded_models", dtype=dtype.dtype or "auto", why=dtype.why, budget=budget)
    if resolved is not None:
        footprints = {entry["name"]: int(entry["footprint"]) for entry in entries}
        warning = crowding_warning(footprints, *resolved)
        if warning is not None:
            _log.warning(
                "models_do_not_fit", message=warning, footprints=footprints, budget=resolved[0]
            )
    return {
        "device": str(device),
        "state_dir": str(settings.state_dir),
        "models_dir": str(settings.models_dir),
        "budget": budget,
        "scheduling": {"request_idle_s": settings.call_idle_s},
        "models": entries,
    }


_EMBEDDED_CONFIG = re.compile(r"embedded-(?P<owner>\d+)-\d+\.yaml$")
RELEASE_WAIT_S = GATEWAY_STOP_TIMEOUT_S + 15.0
"""How long a new run waits for a dying embedded gateway to give the device up."""
START_LOCK_WAIT_S = RELEASE_WAIT_S + GATEWAY_START_TIMEOUT_S + 15.0
"""How long a run waits for another that is looking for or starting the embedded gateway: as
long as that one may hold the start lock (a dying gateway's release, then a start)."""


def leases_dir(config: Path) -> Path:
    """The lease directory of the embedded gateway started with ``config``."""
    return config.with_suffix(".leases")


def is_embedded(holder: LockHolder) -> bool:
    """Whether the lock's holder is an embedded gateway (one that runs while it is leased)."""
    return _EMBEDDED_CONFIG.search(holder.config) is not None


def dying_reason(holder: LockHolder) -> str | None:
    """Why the lock's holder is on its way out, or None while it is a live gateway.

    An embedded gateway (its config is ``embedded-<pid>-<port>.yaml``) runs while some run
    holds a live lease on it and stops itself within ``LEASE_POLL_S`` (0.5 s) of the last
    one ending, however it ended (a SIGKILLed run included); then it still holds the device
    for the seconds it takes to stop its model servers. A gateway with no live lease never
    gets one again, so it is stopping even if its process has not noticed yet.
    """
    if not process_alive(holder.pid, None):
        return f"gateway pid {holder.pid} has exited"
    if is_embedded(holder) and not live_leases(leases_dir(Path(holder.config))):
        return "every run that used it has ended or exited, so it is stopping"
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

    A gateway that is stopping (no run uses it any more, or it exited) is waited for,
    bounded, and then None is returned: the caller starts its own.

    Raises:
        DeviceBusyError: a live gateway owns the device and does not serve every model (or
            does not answer), or a dying one did not let go in time.
    """
    holder = _running_holder(settings, device, models)
    return f"{holder.url}/v1" if holder is not None else None


def _running_holder(settings: Settings, device: Device, models: Sequence[str]) -> LockHolder | None:
    """:func:`running_gateway`, with the lock's holder rather than its URL."""
    path = lock_path(lock_dir(settings.lock_dir), device_key(device))
    if not is_locked(path):
        return None
    holder = read_holder(path)
    try:
        why = dying_reason(holder) if holder is not None else None
    except PermissionError:
        raise DeviceBusyError(_not_ours(holder, f"device {device}")) from None
    if holder is not None and why is not None:
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
    return holder


@dataclass
class _Use:
    """One run's use of a gateway: what to release, and what to stop if it is the last."""

    url: str
    lease: Lease | None = None
    """None for a gateway nobody leases (one started by hand): used, never stopped."""
    config: Path | None = None
    process: ManagedProcess | None = None
    """The gateway process, when this run started it."""
    pid: int | None = None
    start: int | None = None


@contextlib.contextmanager
def embedded_gateway(
    settings: Settings,
    models: list[str],
    *,
    budget_bytes: int | None = None,
    start_timeout_s: float = GATEWAY_START_TIMEOUT_S,
    config: Mapping[str, Any] | None = None,
) -> Iterator[str]:
    """A gateway for ``models`` for the duration of the block; yields its ``/v1`` URL.

    The gateway is shared: a running one that serves ``models`` is leased rather than
    started again, and whoever started it, it stops when the last run that leases it ends.
    ``config`` replaces the catalogue config (:func:`embedded_config`) for a gateway this
    call starts, with its own backends (tests start fake servers so); its ``device`` is the
    device to claim.
    """
    device = _device(settings, config)

    def make_config() -> Mapping[str, Any]:
        if config is not None:
            return config
        return embedded_config(settings, models, device=device, budget_bytes=budget_bytes)

    with start_lock(lock_dir(settings.lock_dir), device_key(device), START_LOCK_WAIT_S):
        use = _use_or_start(settings, device, models, make_config, start_timeout_s)
    try:
        yield use.url
    finally:
        _end(use)


def _device(settings: Settings, config: Mapping[str, Any] | None) -> Device:
    wanted = Device(str(config.get("device", Device.AUTO))) if config is not None else None
    if wanted is not None and wanted is not Device.AUTO:
        return wanted
    return detect_device(settings.device)


def _use_or_start(
    settings: Settings,
    device: Device,
    models: Sequence[str],
    make_config: Callable[[], Mapping[str, Any]],
    start_timeout_s: float,
) -> _Use:
    """Under the start lock: lease the running gateway, or start one (leased by this run)."""
    for _ in range(3):
        holder = _running_holder(settings, device, models)
        if holder is None:
            return _start(settings, make_config(), models, start_timeout_s)
        use = _lease(holder)
        if use is not None:
            _log.info("gateway_reused", url=holder.url, pid=holder.pid, models=list(models))
            return use
        # Its last lease ended between the look and ours: it is stopping, so look again,
        # which waits for it to let the device go.
    raise DeviceBusyError(
        f"the gateway of device {device} kept stopping as this run tried to use it; run again"
    )


def _lease(holder: LockHolder) -> _Use | None:
    """Lease a running gateway; None when it turns out to be stopping."""
    url = f"{holder.url}/v1"
    if not is_embedded(holder):
        return _Use(url)  # started by hand: its owner stops it
    config = Path(holder.config)
    try:
        lease = take_lease(leases_dir(config))
    except FileNotFoundError:
        return None  # its leases went with it
    except PermissionError:
        raise DeviceBusyError(_not_ours(holder, "its device")) from None
    # Written before looking: a user ending now sees this lease, or we see it gone.
    if not live_leases(leases_dir(config), besides=lease):
        lease.release()
        return None
    return _Use(url, lease, config, pid=holder.pid, start=process_start(holder.pid))


def _start(
    settings: Settings, config: Mapping[str, Any], models: Sequence[str], start_timeout_s: float
) -> _Use:
    """Start an embedded gateway with ``config``, leased by this run; wait for its health.

    It runs in its own session (Ctrl-C in a terminal reaches the run, which stops it), not as
    ``die_with_parent``: it may outlive this run while others lease it, and when the last
    lease holder dies the gateway notices within ``LEASE_POLL_S`` and stops itself.
    """
    port = free_port()
    path = settings.state_dir / "gateway" / f"embedded-{os.getpid()}-{port}.yaml"
    sweep_stale(path.parent)
    leases = leases_dir(path)
    leases.mkdir(parents=True, exist_ok=True)
    lease = take_lease(leases)  # before the gateway looks for leases
    path.write_text(yaml.safe_dump(dict(config), sort_keys=False), "utf-8")
    process = ManagedProcess(
        "gateway",
        _command(path, port, leases),
        health_url=f"http://127.0.0.1:{port}/health",
        log_path=settings.log_dir() / f"gateway-{port}.log",
        env=_gateway_env(settings),
        start_timeout_s=start_timeout_s,
        stop_timeout_s=GATEWAY_STOP_TIMEOUT_S,
    )
    try:
        process.start()
    except BaseException:
        lease.release()
        _remove(path)
        raise
    _log.info("gateway_started", url=f"http://127.0.0.1:{port}", models=list(models))
    return _Use(f"http://127.0.0.1:{port}/v1", lease, path, process, process.pid)


def _gateway_env(settings: Settings) -> dict[str, str]:
    """The embedded gateway's environment: ours, less the gateway token, plus our lock dir.

    The lock directory is the one this run looks in, whatever a settings file would tell the
    gateway.
    """
    env = {k: v for k, v in os.environ.items() if k != DEFAULT_TOKEN_ENV}
    env[LOCK_DIR_ENV] = str(lock_dir(settings.lock_dir))
    return env


def _not_ours(holder: LockHolder | None, device: str) -> str:
    """Why a run cannot lease the embedded gateway of another user (its leases are theirs)."""
    where = f"pid {holder.pid} at {holder.url}" if holder else "an unknown process"
    return (
        f"another user's embedded gateway ({where}) owns {device}, and its leases are not "
        f"ours to take; set EDGESWARM_BASE_URL to {holder.url if holder else 'it'}/v1 to use it "
        "while it runs, or ask its owner to stop it"
    )


def _end(use: _Use) -> None:
    """End this run's lease; stop the gateway when no other run holds one."""
    if use.lease is None or use.config is None:
        return
    use.lease.release()
    # Released before looking: a run leasing now sees our lease gone, or we see its lease.
    others = live_leases(leases_dir(use.config))
    if others:
        _log.info("gateway_left_running", url=use.url, leases=len(others))
        if use.process is not None:
            use.process.detach()
        return
    if use.process is not None:
        use.process.stop()
    elif use.pid is not None:
        stop_group(use.pid, use.start, GATEWAY_STOP_TIMEOUT_S, "gateway")
    _remove(use.config)


def sweep_stale(gateway_dir: Path) -> list[Path]:
    """Remove the configs (and lease dirs) of embedded gateways whose run was killed.

    A run removes its gateway's config when it stops it; a SIGKILLed run cannot. Such a
    config is stale once the run that wrote it (the pid in its name) has exited and no run
    holds a live lease on its gateway: that gateway stops itself, and reads its config only
    when it starts. Returns what was removed.
    """
    removed: list[Path] = []
    for config in sorted(gateway_dir.glob("embedded-*.yaml")):
        found = _EMBEDDED_CONFIG.search(config.name)
        if found is None or process_alive(int(found["owner"]), None):
            continue
        if live_leases(leases_dir(config)):
            continue
        _remove(config)
        removed.append(config)
    if removed:
        _log.info("gateway_configs_swept", configs=[str(path) for path in removed])
    return removed


def _remove(config: Path) -> None:
    config.unlink(missing_ok=True)
    remove_leases(leases_dir(config))


def _command(config: Path, port: int, leases: Path) -> list[str]:
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
        "--leases",
        str(leases),
    ]
