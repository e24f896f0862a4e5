"""Whether a CPU vLLM server survives seeded sampled requests, and answers them reproducibly.

``python -m bench.seeded_sampling [--model NAME] [--rounds N] [--out FILE]``: one server of the
model as edgeswarm starts it on CPU (whole prefills: :data:`runtime.vllm.CHUNKED_PREFILL_FLAG`),
then one with vLLM's own CPU chunking (``--enable-chunked-prefill --max-num-batched-tokens
2048``). Each gets ``--rounds`` rounds of the same 12 seeded sampled requests (temperature 0.8,
half of them behind a ~2,500-token prompt, so that prefills meet decodes), arriving in a
different order each round over 6 s. Recorded per server: the requests answered and failed,
whether the server still answered at the end, each round's seconds, and how many answers were
identical to the first round's (the same seed; only the batch's order differs). Not part of
``make bench`` (two server starts).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx

from bench.report import save_results
from runtime.settings import load_settings
from runtime.vllm import VLLMServer, VLLMSpec, detect_device

CHUNKED = ("--enable-chunked-prefill", "--max-num-batched-tokens", "2048")
NOTES = "\n".join(
    f"# note {i}: setting key_{i} is {i * 7 % 13} and must be read from the config"
    for i in range(120)
)
ASKS = (
    "reverse a string",
    "sum the digits of an int",
    "tell whether an int is prime",
    "flatten a nested list",
    "count the vowels of a text",
    "merge two dicts",
    "split a list into chunks of n",
    "turn camelCase into snake_case",
    "the gcd of a list of ints",
    "rotate a list by k",
    "drop duplicates, keeping the order",
    "parse the ints of a comma-separated line",
)


def _body(model: str, i: int) -> dict[str, Any]:
    prompt = (NOTES if i % 2 == 0 else "") + f"\nWrite a Python function to {ASKS[i]}."
    return {
        "model": model,
        "messages": [{"role": "user", "content": prompt}],
        "temperature": 0.8,
        "seed": 1000 + i,
        "max_tokens": 160,
    }


async def _round(url: str, model: str, order: int) -> list[str | None]:
    """Every ask once, each after a delay drawn from ``order``; None for a failed request."""
    delays = random.Random(order)  # noqa: S311 (a reproducible arrival order, not a secret)

    async def one(client: httpx.AsyncClient, i: int, delay: float) -> str | None:
        await asyncio.sleep(delay)
        try:
            reply = await client.post(url, json=_body(model, i), timeout=600)
        except httpx.HTTPError:
            return None
        if reply.status_code != 200:
            return None
        return str(reply.json()["choices"][0]["message"]["content"])

    async with httpx.AsyncClient() as client:
        asks = [one(client, i, delays.uniform(0, 6)) for i in range(len(ASKS))]
        return list(await asyncio.gather(*asks))


def measure(spec: VLLMSpec, rounds: int, logs: Path) -> dict[str, Any]:
    """``rounds`` rounds against one server of ``spec``."""
    answers: list[list[str | None]] = []
    seconds: list[float] = []
    with VLLMServer(spec, logs) as server:
        url = f"{server.base_url}/chat/completions"
        for order in range(rounds):
            start = time.monotonic()
            answers.append(asyncio.run(_round(url, spec.served_name, order)))
            seconds.append(round(time.monotonic() - start, 1))
        alive = server.alive()
    first = answers[0]
    return {
        "extra_args": list(spec.extra_args),
        "seeds_sampling": spec.seeds_sampling,
        "answered": sum(a is not None for round_ in answers for a in round_),
        "failed": sum(a is None for round_ in answers for a in round_),
        "alive_at_end": alive,
        "round_s": seconds,
        "same_as_first_round": [
            sum(a is not None and a == b for a, b in zip(round_, first, strict=True))
            for round_ in answers[1:]
        ],
        "requests_a_round": len(ASKS),
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Run both servers and print (and with ``--out`` write) what each did."""
    parser = argparse.ArgumentParser(prog="python -m bench.seeded_sampling", description=__doc__)
    parser.add_argument("--model", default="qwen2.5-coder-0.5b-instruct", help="a pulled model")
    parser.add_argument("--rounds", type=int, default=3, help="rounds a server (at least 2)")
    parser.add_argument("--out", type=Path, help="write the results JSON here")
    args = parser.parse_args(argv)
    if args.rounds < 2:
        parser.error("--rounds must be at least 2: a round is compared with the first")
    settings = load_settings()
    model_dir = settings.models_dir.expanduser() / args.model
    rows = []
    with tempfile.TemporaryDirectory(prefix="edgeswarm-seeds-") as logs:
        for extra in ((), CHUNKED):
            spec = VLLMSpec(
                model_dir,
                args.model,
                detect_device(settings.device),
                max_model_len=settings.max_model_len,
                cpu_kvcache_gib=settings.cpu_kvcache_gib,
                extra_args=extra,
            )
            row = measure(spec, args.rounds, Path(logs))
            print(row, flush=True)
            rows.append(row)
    save_results(args.out, "seeded_sampling", argv, model=args.model, rows=rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
