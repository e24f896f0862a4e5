"""Which dtype serves faster on this CPU: bfloat16 (the checkpoints' own) or float32.

``python -m bench.cpu_dtype [--models NAME ...] [--out FILE]``: for each pulled model, one vLLM
CPU server per dtype (``--dtype bfloat16``, then ``--dtype float32``), measured back to back
on the same prompts: server start, one stream and eight streams of 48 tokens (ignore_eos),
the prefill rate of one ~1000-token prompt, and the proportional set size (PSS) of the
server's process tree at the end, at the embedded gateway's sizes (``max_model_len`` and
``cpu_kvcache_gib`` from the settings): the figure its budget counts. CPUs without AVX-512 BF16
emulate bfloat16 matrix products, so float32 can be the faster choice there for batched work
and prefill; on CPUs with AVX-512 BF16 or AMX bfloat16 is. The results also record the dtype
edgeswarm picks on this CPU (:func:`runtime.cpu.choose_dtype`). Not part of ``make bench``
(four server starts).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx

from bench.report import save_results
from runtime.cpu import BF16_FLAGS, choose_dtype, host_flags
from runtime.gateway.budget import process_group_pids, pss_bytes
from runtime.settings import Device, Settings, load_settings
from runtime.vllm import VLLMServer, VLLMSpec

DTYPES = ("bfloat16", "float32")
LONG_PROMPT = " ".join(f"item{i}" for i in range(300)) + " Which item comes last?"
SHORT_PROMPT = "Count from one to one hundred in words."


async def _rate(base_url: str, streams: int, tokens: int, prompt: str) -> dict[str, float]:
    """Completion and prompt tokens per second of ``streams`` concurrent requests."""
    body = {
        "model": "m",
        "messages": [{"role": "user", "content": prompt}],
        "max_tokens": tokens,
        "ignore_eos": True,
        "temperature": 0,
    }
    async with httpx.AsyncClient(timeout=900, trust_env=False) as http:
        started = time.monotonic()
        replies = await asyncio.gather(
            *(http.post(f"{base_url}/chat/completions", json=body) for _ in range(streams))
        )
        seconds = time.monotonic() - started
    for reply in replies:
        reply.raise_for_status()
    usage = [reply.json()["usage"] for reply in replies]
    return {
        "completion_tokens_per_s": round(sum(u["completion_tokens"] for u in usage) / seconds, 2),
        "prompt_tokens_per_s": round(sum(u["prompt_tokens"] for u in usage) / seconds, 1),
    }


def measure(model_dir: Path, dtype: str, logs: Path, settings: Settings) -> dict[str, Any]:
    """One server of ``model_dir`` in ``dtype``: start seconds, the three rates, its PSS."""
    spec = VLLMSpec(
        model_dir=model_dir,
        served_name="m",
        device=Device.CPU,
        max_model_len=settings.max_model_len,
        cpu_kvcache_gib=settings.cpu_kvcache_gib,
        extra_args=("--dtype", dtype),
    )
    server = VLLMServer(spec, logs, start_timeout_s=600)
    started = time.monotonic()
    with server:
        start_s = time.monotonic() - started
        asyncio.run(_rate(server.base_url, 1, 4, SHORT_PROMPT))  # warm-up
        one = asyncio.run(_rate(server.base_url, 1, 48, SHORT_PROMPT))
        eight = asyncio.run(_rate(server.base_url, 8, 48, SHORT_PROMPT))
        prefill = asyncio.run(_rate(server.base_url, 1, 1, LONG_PROMPT))
        pss = pss_bytes(process_group_pids(server.pid)) if server.pid else 0
    return {
        "dtype": dtype,
        "start_s": round(start_s, 1),
        "one_stream_tokens_per_s": one["completion_tokens_per_s"],
        "eight_streams_tokens_per_s": eight["completion_tokens_per_s"],
        "prefill_tokens_per_s": prefill["prompt_tokens_per_s"],
        "pss_gb": round(pss / 1e9, 2),
        "loadavg_1m_end": round(os.getloadavg()[0], 2),  # other work on the cores skews rates
        "max_model_len": settings.max_model_len,
        "cpu_kvcache_gib": settings.cpu_kvcache_gib,
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Measure every model in both dtypes; print a table, write JSON with ``--out``."""
    parser = argparse.ArgumentParser(prog="python -m bench.cpu_dtype", description=__doc__)
    parser.add_argument(
        "--models",
        nargs="+",
        default=["smollm2-135m-instruct", "qwen2.5-coder-0.5b-instruct"],
        help="pulled catalogue models (default: the two embedded ones)",
    )
    parser.add_argument("--out", type=Path, help="write the results JSON here")
    args = parser.parse_args(argv)
    settings = load_settings()
    models_dir = settings.models_dir.expanduser()
    logs = Path(tempfile.mkdtemp(prefix="edgeswarm-dtype-"))
    choice = choose_dtype(Device.CPU)
    default = {
        "dtype": choice.dtype,
        "why": choice.why,
        "bf16_flags": [flag for flag in BF16_FLAGS if flag in host_flags()],
    }
    print(json.dumps({"edgeswarm_default": default}), flush=True)
    rows = []
    for name in args.models:
        for dtype in DTYPES:
            row = {"model": name, **measure(models_dir / name, dtype, logs, settings)}
            print(json.dumps(row), flush=True)
            rows.append(row)
    save_results(args.out, "cpu_dtype", argv, rows=rows, edgeswarm_default=default)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
