"""Memory truth: the budget (NVML on a GPU, configured on CPU) and measured footprints.

On CUDA the budget is the GPU's total (or free) memory from NVML less a reserve, capped by a
configured ``budget.bytes``; when NVML fails the gateway degrades to ``budget.bytes`` with a
warning. On CPU it is ``budget.bytes`` or a fraction of system RAM. After a load the gateway
measures what the server really holds: NVML's per-process GPU memory on CUDA, the proportional
set size (PSS) of the server's process tree on CPU.

In a container with its own PID namespace (Docker's and Kubernetes' default) NVML reports
host PIDs, which match none of the server's: per-process figures cannot be attributed there.
The gateway then measures by difference: NVML's device-wide used bytes before and after the
load or sleep, which it carries out alone (under the device mutex), so the difference is that
server's. Resident models keep batching meanwhile, but vLLM reserves its KV cache up front, so
their device memory stays put; a process outside the gateway allocating at that moment would
be counted to the server (on the safe side), one freeing would hide part of it.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from runtime.gateway.config import (
    BudgetConfig,
    ConfigError,
    GatewayConfig,
    RemoteModelConfig,
    VLLMModelConfig,
    check_fits,
)
from runtime.logs import get_logger
from runtime.nvml import DeviceMemory, NVMLUnavailableError, device_memory, gpu_count
from runtime.settings import Device

_log = get_logger("gateway.budget")
DEFAULT_RAM_FRACTION = 0.5
"""The share of the RAM a CPU budget takes when none is configured; also the embedded
gateway's floor (:func:`runtime.gateway.embedded.cpu_budget`)."""


@dataclass(frozen=True)
class Budget:
    """The resolved budgets in bytes and where the device figure came from."""

    device_bytes: int
    host_bytes: int
    source: str
    gpu_total: int | None = None
    """The GPU's total bytes, where NVML measured them."""


def system_ram() -> int:
    """Physical memory of this machine in bytes."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def resolve_device(config: GatewayConfig) -> Device:
    """The device this gateway owns: the configured one, or CUDA when a GPU and no CPU vLLM."""
    if config.device is not Device.AUTO:
        return config.device
    uses_vllm = any(isinstance(m, VLLMModelConfig) for m in config.models)
    if uses_vllm and importlib.util.find_spec("vllm") is not None:
        from runtime.vllm import detect_device

        return detect_device(Device.AUTO)
    return Device.CUDA if gpu_count() > 0 else Device.CPU


def resolve_budget(
    budget: BudgetConfig,
    device: Device,
    *,
    gpu_index: int = 0,
    probe: Callable[[int], DeviceMemory] = device_memory,
    ram: Callable[[], int] = system_ram,
) -> Budget:
    """The device and host budgets for ``device``.

    Raises:
        ConfigError: no budget can be determined (NVML failed and no ``budget.bytes``).
    """
    host = budget.host_bytes or int(ram() * DEFAULT_RAM_FRACTION)
    if device is Device.CUDA:
        return _gpu_budget(budget, gpu_index, probe, host)
    if budget.bytes is not None:
        return Budget(budget.bytes, host, "budget.bytes")
    fraction = budget.ram_fraction or DEFAULT_RAM_FRACTION
    return Budget(int(ram() * fraction), host, f"budget.ram_fraction ({fraction} of system RAM)")


def _gpu_budget(
    budget: BudgetConfig, index: int, probe: Callable[[int], DeviceMemory], host: int
) -> Budget:
    try:
        memory = probe(index)
    except NVMLUnavailableError as err:
        if budget.bytes is None:
            raise ConfigError(
                f"budget: NVML cannot measure GPU {index} ({err}) and no budget.bytes is set"
            ) from None
        _log.warning("budget_degraded", reason=str(err), budget_bytes=budget.bytes)
        return Budget(budget.bytes, host, "budget.bytes (NVML unavailable)")
    base = memory.total if budget.gpu_memory == "total" else memory.free
    figure = base - budget.reserve
    source = f"NVML {budget.gpu_memory} memory of GPU {index} ({memory.name}) less reserve"
    if budget.bytes is not None and budget.bytes < figure:
        figure, source = budget.bytes, "budget.bytes (below the NVML figure)"
    if figure <= 0:
        raise ConfigError(f"budget.reserve: leaves no memory on GPU {index} ({memory.name})")
    return Budget(figure, host, source, memory.total)


def plan_budget(config: GatewayConfig, origin: str, device: Device) -> Budget:
    """Resolve the budget and reject models that could never fit (at load, not at run time)."""
    budget = resolve_budget(config.budget, device, gpu_index=config.gpu_index)
    check_fits(config, budget.device_bytes, origin=origin, source=budget.source)
    for index, entry in enumerate(config.models):
        if isinstance(entry, RemoteModelConfig) or entry.swap != "sleep":
            continue
        host_need = entry.sleep_footprint or entry.footprint
        if entry.sleep_level == 1 and host_need > budget.host_bytes:
            raise ConfigError(
                f"{origin}: models[{index}] ({entry.name}).sleep_footprint: more than the host "
                f"budget budget.host_bytes ({budget.host_bytes} bytes)"
            )
    return budget


def process_group_pids(pgid: int, proc: Path = Path("/proc")) -> list[int]:
    """Every live process in process group ``pgid`` (a server and its workers)."""
    pids = []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 2 and int(fields[2]) == pgid and fields[0] != "Z":
            pids.append(int(entry.name))
    return pids


def pss_bytes(pids: list[int], proc: Path = Path("/proc")) -> int:
    """Summed proportional set size of ``pids``: the honest RAM figure on CPU."""
    total = 0
    for pid in pids:
        try:
            text = (proc / str(pid) / "smaps_rollup").read_text()
        except OSError:
            continue
        for line in text.splitlines():
            if line.startswith("Pss:"):
                total += int(line.split()[1]) * 1024
                break
    return total


@dataclass(frozen=True)
class DeviceMark:
    """NVML's device-wide used bytes at one moment, and what the server held on it then."""

    used: int
    held: int


def device_mark(index: int = 0, held: int = 0) -> DeviceMark | None:
    """A :class:`DeviceMark` of GPU ``index`` now; None when NVML cannot tell."""
    try:
        return DeviceMark(device_memory(index).used, held)
    except NVMLUnavailableError:
        return None


def gpu_bytes(pids: list[int], index: int = 0, since: DeviceMark | None = None) -> int | None:
    """GPU memory of ``pids`` on GPU ``index``; None when NVML cannot tell.

    NVML's per-process figures when it lists any of ``pids`` with a figure. Otherwise (NVML
    lists host PIDs in another PID namespace, or gives no per-process figure) and with a mark
    taken before the change: what the server held then plus the change in the device's used
    bytes since, never below 0 (``footprint_by_difference``, info). Without a mark, or NVML
    failing mid-run, None and a warning (``footprint_unmeasured``): the ledger keeps the
    declared footprint, so the budget still holds, only unchecked against the GPU.
    """
    import pynvml

    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError as err:
        _log.warning("footprint_unmeasured", gpu=index, reason=f"NVML is not available: {err}")
        return None
    try:
        handle = pynvml.nvmlDeviceGetHandleByIndex(index)
        running = pynvml.nvmlDeviceGetComputeRunningProcesses(handle)
        wanted = set(pids)
        figures = [p.usedGpuMemory for p in running if p.pid in wanted]
        if figures and all(figure is not None for figure in figures):
            return sum(int(figure) for figure in figures)
        why = (
            "NVML gives no per-process figure for the server"
            if figures
            else f"NVML lists none of the server's PIDs {sorted(wanted)} (a PID namespace?)"
        )
        if since is None:
            _log.warning("footprint_unmeasured", gpu=index, reason=why)
            return None
        used = int(pynvml.nvmlDeviceGetMemoryInfo(handle).used)
    except pynvml.NVMLError as err:
        _log.warning("footprint_unmeasured", gpu=index, reason=f"NVML query failed: {err}")
        return None
    finally:
        pynvml.nvmlShutdown()
    measured = max(0, since.held + used - since.used)
    _log.info(
        "footprint_by_difference",
        gpu=index,
        reason=why,
        held_bytes=since.held,
        used_before=since.used,
        used_after=used,
        measured_bytes=measured,
    )
    return measured


def measure_footprint(
    pgid: int | None, device: Device, gpu_index: int = 0, since: DeviceMark | None = None
) -> int | None:
    """What a server's process group holds now: GPU bytes on CUDA, PSS on CPU.

    ``since`` (CUDA): a mark taken before the load or sleep being measured, for when NVML
    cannot attribute memory to the server's processes (see :func:`gpu_bytes`).
    """
    if pgid is None:
        return None
    pids = process_group_pids(pgid)
    if not pids:
        return None
    if device is Device.CUDA:
        return gpu_bytes(pids, gpu_index, since)
    return pss_bytes(pids)
