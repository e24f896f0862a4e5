"""GPU memory truth from NVML (NVIDIA's ``pynvml`` module, package ``nvidia-ml-py``).

Without an NVIDIA driver ``nvmlInit`` raises ``NVMLError_LibraryNotFound``; callers get
:class:`NVMLUnavailableError` and fall back to configured budgets.
"""

from __future__ import annotations

from dataclasses import dataclass

import pynvml


class NVMLUnavailableError(RuntimeError):
    """NVML cannot be used here (no driver, no GPU, or a failing call)."""


@dataclass(frozen=True)
class DeviceMemory:
    """Memory of one GPU in bytes, as NVML reports it."""

    index: int
    name: str
    total: int
    free: int
    used: int


def _init() -> None:
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError as err:
        raise NVMLUnavailableError(f"NVML is not available: {err}") from None


def gpu_count() -> int:
    """Number of NVIDIA GPUs NVML sees; 0 when NVML is unavailable."""
    try:
        _init()
    except NVMLUnavailableError:
        return 0
    try:
        count: int = pynvml.nvmlDeviceGetCount()
        return count
    except pynvml.NVMLError:
        return 0
    finally:
        pynvml.nvmlShutdown()


def gpu_uuid(index: int = 0) -> str:
    """The UUID of GPU ``index`` (``GPU-8f6c...``): the same for every process and user.

    Raises:
        NVMLUnavailableError: NVML is not available, or cannot say.
    """
    _init()
    try:
        uuid = pynvml.nvmlDeviceGetUUID(pynvml.nvmlDeviceGetHandleByIndex(index))
        return uuid.decode() if isinstance(uuid, bytes) else str(uuid)
    except pynvml.NVMLError as err:
        raise NVMLUnavailableError(f"NVML query for GPU {index} failed: {err}") from None
    finally:
        pynvml.nvmlShutdown()


def device_memory(index: int = 0) -> DeviceMemory:
    """Total, free and used memory of GPU ``index``."""
    _init()
    try:
        handle = pynvml.nvmlDeviceGetHandleByIndex(index)
        info = pynvml.nvmlDeviceGetMemoryInfo(handle)
        name = pynvml.nvmlDeviceGetName(handle)
        label = name.decode() if isinstance(name, bytes) else str(name)
        return DeviceMemory(index, label, int(info.total), int(info.free), int(info.used))
    except pynvml.NVMLError as err:
        raise NVMLUnavailableError(f"NVML query for GPU {index} failed: {err}") from None
    finally:
        pynvml.nvmlShutdown()
