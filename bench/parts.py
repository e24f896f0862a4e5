"""The gateway benchmark's three measurements; each returns plain data for the results file.

1. :func:`throughput`: N = 1, 2, 4, 8 concurrent chat requests straight to one vLLM CPU server
   and through a gateway in front of that same server (a ``remote`` model), alternating,
   medians and ratio per N.
2. :func:`mixed_workload`: one mixed 3-model schedule replayed under the ``grouped`` policy,
   under ``fifo`` (arrival order, ready models still batch) and under the naive ``fifo-mutex``
   one, with fake backends and a budget that fits one model.
3. :func:`swap_latency_vllm`, :func:`swap_latency_fake`: requests alternating between two
   models under a budget that fits one, so every request swaps; the step durations come from
   the gateway's structured log.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import httpx

from bench.harness import (
    FakeSpec,
    GiB,
    PortFor,
    Workspace,
    fake_model,
    gateway,
    gateway_in_front,
    read_events,
    sized_server,
    vllm_model,
    write_config,
)
from bench.load import (
    Burst,
    Outcome,
    burst,
    chat_body,
    client,
    in_turn,
    latency_summary,
    median,
    mixed_schedule,
    ratio,
    replay,
)

SMALL = "smollm2-135m-instruct"
SMALL_FP32 = "smollm2-135m-instruct-fp32"
PROMPTS = (
    "Describe a lighthouse at night.",
    "Explain how a bicycle stays upright.",
    "Write a short story about a lost key.",
    "List some uses of a paperclip.",
    "Describe the water cycle.",
    "Explain what a compiler does.",
    "Write a letter to a friend about autumn.",
    "Describe a busy market in the morning.",
)
SWAP_STEPS = {"drain", "unload", "sleep", "load_end", "wake", "load_failed", "wake_failed"}


# -- 1. throughput ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ThroughputSizes:
    """Part 1's knobs: concurrency levels, answer length, repetitions."""

    levels: tuple[int, ...] = (1, 2, 4, 8)
    max_tokens: int = 32
    reps: int = 4
    """Alternating (direct, gateway) repetitions per N: a burst lasts a few seconds on 2 cores."""
    max_model_len: int = 4096  # the sizes of parts 1, 4 and 5: they share one server
    kvcache_gib: int = 2


def throughput(sizes: ThroughputSizes, work: Workspace, port_for: PortFor) -> dict[str, Any]:
    """Tokens/s of N concurrent requests direct to vLLM vs through a gateway to it, per N."""
    with (
        sized_server(SMALL, sizes, work, port_for) as server,
        gateway_in_front(SMALL, server.base_url, work, "throughput", port_for) as gw,
    ):
        targets = {"direct": server.base_url, "gateway": gw.api_base}
        runs, ignore_eos = asyncio.run(_throughput_runs(sizes, targets))
    levels = {
        str(n): _throughput_summary([r for r in runs if r["n"] == n], n * sizes.max_tokens)
        for n in sizes.levels
    }
    ratios = [level["ratio"] for level in levels.values() if level["ratio"] is not None]
    return {
        "sizes": asdict(sizes),
        "ignore_eos": ignore_eos,
        "levels": levels,
        "ratio_min": min(ratios) if ratios else None,
        "target": 0.9,
    }


async def _throughput_runs(
    sizes: ThroughputSizes, targets: dict[str, str]
) -> tuple[list[dict[str, Any]], bool]:
    async with client() as http:
        ignore_eos = await _accepts_ignore_eos(http, targets["direct"])
        extra = {"ignore_eos": True} if ignore_eos else {}
        runs = []
        for n in sizes.levels:
            bodies = [
                chat_body(SMALL, PROMPTS[i % len(PROMPTS)], sizes.max_tokens, **extra)
                for i in range(n)
            ]
            warm = [{**body, "max_tokens": 4} for body in bodies]  # prefill and a few tokens
            for api_base in targets.values():  # warm-up: caches, connections, the gateway's pool
                check(await burst(http, api_base, warm), "warm-up")
            for rep in range(sizes.reps):
                order = ("direct", "gateway") if rep % 2 == 0 else ("gateway", "direct")
                for arm in order:
                    result = check(await burst(http, targets[arm], bodies), arm)
                    runs.append({"n": n, **_run_record(arm, rep, result)})
    return runs, ignore_eos


async def _accepts_ignore_eos(http: httpx.AsyncClient, api_base: str) -> bool:
    """Whether the server takes vLLM's ``ignore_eos`` (so every answer has max_tokens)."""
    body = chat_body(SMALL, PROMPTS[0], 4, ignore_eos=True)
    return (await burst(http, api_base, [body])).outcomes[0].ok


def check(result: Burst, what: str) -> Burst:
    """``result``, or RuntimeError naming ``what`` when any of its requests failed."""
    failed = [o for o in result.outcomes if not o.ok]
    if failed:
        raise RuntimeError(f"{what}: {len(failed)} requests failed: {failed[0].error}")
    return result


def _run_record(arm: str, rep: int, result: Burst) -> dict[str, Any]:
    return {
        "arm": arm,
        "rep": rep,
        "wall_s": round(result.wall_s, 4),
        "completion_tokens": result.tokens,
        "tokens_per_s": round(result.tokens_per_s, 3),
        "per_request_tokens": [o.completion_tokens for o in result.outcomes],
        "per_request_latency_s": [round(o.latency_s, 4) for o in result.outcomes],
    }


def _throughput_summary(runs: list[dict[str, Any]], expected: int) -> dict[str, Any]:
    rate = {
        arm: [r["tokens_per_s"] for r in runs if r["arm"] == arm] for arm in ("direct", "gateway")
    }
    direct, through = median(rate["direct"]), median(rate["gateway"])
    paired = [g / d for d, g in zip(rate["direct"], rate["gateway"], strict=True) if d > 0]
    return {
        "runs": runs,
        "direct_tokens_per_s_median": round(direct, 3),
        "gateway_tokens_per_s_median": round(through, 3),
        "ratio": round(through / direct, 4) if direct > 0 else None,
        "paired_ratios": [round(p, 4) for p in paired],
        "paired_ratio_median": round(median(paired), 4) if paired else None,
        "every_request_full_length": all(r["completion_tokens"] == expected for r in runs),
    }


# -- 2. mixed workload --------------------------------------------------------------------------

POLICIES = ("grouped", "fifo", "fifo-mutex")
"""The gateway's scheduler, arrival order with batching kept, and the naive mutex."""


@dataclass(frozen=True)
class MixedSizes:
    """Part 2's knobs: the schedule, the fake backends and the scheduling settings."""

    requests: int = 60
    models: tuple[str, ...] = ("fake-a", "fake-b", "fake-c")
    window_s: float = 8.0
    seed: int = 4
    fake: FakeSpec = field(default_factory=FakeSpec)
    scheduling: dict[str, Any] = field(
        default_factory=lambda: {"max_wait_s": 10, "linger_s": 2, "request_timeout_s": 900}
    )


def mixed_workload(sizes: MixedSizes, work: Workspace, port_for: PortFor) -> dict[str, Any]:
    """The same schedule under each policy, back to back; totals, swaps, latencies, ratios."""
    schedule = mixed_schedule(sizes.models, sizes.requests, sizes.window_s, sizes.seed)
    runs = {policy: _mixed_run(policy, schedule, sizes, work, port_for) for policy in POLICIES}
    grouped = runs["grouped"]
    return {
        "sizes": {
            **asdict(sizes),
            "fake": sizes.fake.as_dict(),
            "budget": one_model_budget(sizes.fake),
        },
        "schedule": [[a.at_s, a.model] for a in schedule],
        "runs": runs,
        "ratios_naive_over_grouped": _over(runs["fifo-mutex"], grouped),
        "ratios_fifo_over_grouped": _over(runs["fifo"], grouped),
    }


def _over(run: dict[str, Any], grouped: dict[str, Any]) -> dict[str, float | None]:
    """``run``'s total time, swaps and latency quantiles over the grouped scheduler's."""
    totals = {key: ratio(run[key], grouped[key], digits=3) for key in ("total_s", "swaps")}
    return totals | {
        key: ratio(run["latency"][key], grouped["latency"][key], digits=3)
        for key in ("p50_s", "p95_s")
    }


def one_model_budget(spec: FakeSpec) -> int:
    """A budget that fits one fake model and not two."""
    return spec.footprint * 3 // 2


def _mixed_run(
    policy: str, schedule: list[Any], sizes: MixedSizes, work: Workspace, port_for: PortFor
) -> dict[str, Any]:
    models = [fake_model(name, sizes.fake) for name in sizes.models]
    config = write_config(
        work,
        f"mixed-{policy}",
        models,
        budget=one_model_budget(sizes.fake),
        policy=policy,
        **sizes.scheduling,
    )
    log = work.file(f"logs/gateway-mixed-{policy}.log")
    body = chat_body("", "hi", sizes.fake.tokens)
    with gateway(config, log, port_for) as gw:
        outcomes = asyncio.run(_replay(gw.api_base, schedule, body))
        running = gw.running()
    steps = swap_steps(read_events(log, SWAP_STEPS))
    return {
        "policy": policy,
        "ok": sum(o.ok for o in outcomes),
        "requests": len(outcomes),
        "total_s": round(max(o.end_s for o in outcomes), 3),
        "swaps": running["swaps"],
        "budget_violations": running["budget_violations"],
        "latency": latency_summary(outcomes),
        "transitions": by_transition(steps),
        "errors": sorted({o.error or "" for o in outcomes if not o.ok})[:5],
        "outcomes": [o.as_dict() for o in outcomes],
        "steps": steps,
    }


async def _replay(api_base: str, schedule: list[Any], body: dict[str, Any]) -> list[Outcome]:
    async with client() as http:
        return await replay(http, api_base, schedule, body)


# -- 3. swap latency ----------------------------------------------------------------------------


@dataclass(frozen=True)
class SwapSizes:
    """Part 3's knobs: how many alternating requests per backend kind."""

    vllm_requests: int = 3
    fake_requests: int = 8
    fake: FakeSpec = field(default_factory=FakeSpec)
    max_model_len: int = 2048
    kvcache_gib: int = 1


def swap_latency_fake(sizes: SwapSizes, work: Workspace, port_for: PortFor) -> dict[str, Any]:
    """Fake-backend swaps: sleep/wake (vLLM sleep mode, faked) and stop/start, same fakes."""
    results: dict[str, Any] = {}
    for kind, sleep in (("fake-sleep-wake", True), ("fake-stop-start", False)):
        models = [fake_model(name, sizes.fake, sleep=sleep) for name in ("fake-x", "fake-y")]
        # Sleep mode is CUDA-only in the config; without NVML the budget degrades to bytes.
        device = "cuda" if sleep else "cpu"
        config = write_config(
            work, kind, models, budget=one_model_budget(sizes.fake), device=device, linger_s=0
        )
        sequence = _alternating(["fake-x", "fake-y"], sizes.fake_requests)
        body = chat_body("", "hi", sizes.fake.tokens)
        results[kind] = _alternate(kind, config, sequence, body, work, port_for)
        results[kind]["fake"] = sizes.fake.as_dict()
    return {"kinds": results}


def swap_latency_vllm(sizes: SwapSizes, work: Workspace, port_for: PortFor) -> dict[str, Any]:
    """Real vLLM CPU stop/start swaps between the bf16 and fp32 SmolLM2 (budget fits one)."""
    kv = sizes.kvcache_gib
    models = [
        vllm_model(SMALL, int(3.5 * GiB), max_model_len=sizes.max_model_len, kvcache_gib=kv),
        vllm_model(SMALL_FP32, 4 * GiB, max_model_len=sizes.max_model_len, kvcache_gib=kv),
    ]
    config = write_config(work, "vllm-stop-start", models, budget=7 * GiB, linger_s=0)
    sequence = _alternating([SMALL, SMALL_FP32], sizes.vllm_requests)
    body = chat_body("", PROMPTS[0], 16)
    run = _alternate("vllm-stop-start", config, sequence, body, work, port_for)
    return {"kinds": {"vllm-stop-start": run}}


def _alternating(models: Sequence[str], count: int) -> list[str]:
    return [models[i % len(models)] for i in range(count)]


def _alternate(
    kind: str,
    config: Any,
    sequence: list[str],
    body: dict[str, Any],
    work: Workspace,
    port_for: PortFor,
) -> dict[str, Any]:
    log = work.file(f"logs/gateway-{kind}.log")
    with gateway(config, log, port_for) as gw:
        outcomes = asyncio.run(_in_turn(gw.api_base, sequence, body))
        running = gw.running()
    steps = swap_steps(read_events(log, SWAP_STEPS))
    failed = [o for o in outcomes if not o.ok]
    if failed:
        raise RuntimeError(f"{kind}: {len(failed)} requests failed: {failed[0].error}")
    transitions = by_transition(steps)
    headline = "sleep->wake" if "sleep->wake" in transitions else "unload->load"
    return {
        "sequence": sequence,
        "budget_violations": running["budget_violations"],
        "headline": headline,
        **transitions.get(headline, {"swaps": 0}),
        "request_latency_s_median": round(median(_swap_latencies(outcomes, steps, headline)), 3),
        "transitions": transitions,
        "cold_load_s": [s["in_s"] for s in steps if s["out_kind"] is None],
        "steps": steps,
        "outcomes": [o.as_dict() for o in outcomes],
    }


def by_transition(steps: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Swaps grouped as ``out->in`` (``unload->load``, ``sleep->wake``...): count and medians."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for step in steps:
        if step["out_kind"] is not None:
            groups.setdefault(f"{step['out_kind']}->{step['in_kind']}", []).append(step)
    return {
        name: {
            "swaps": len(group),
            "in_s_median": round(median([s["in_s"] for s in group]), 3),
            "out_s_median": round(median([s["out_s"] for s in group]), 3),
            "swap_s_median": round(median([s["total_s"] for s in group]), 3),
        }
        for name, group in groups.items()
    }


def _swap_latencies(
    outcomes: list[Outcome], steps: list[dict[str, Any]], transition: str
) -> list[float]:
    """Latencies of the requests whose swap was ``transition`` (one step per request)."""
    if len(steps) != len(outcomes):
        return [o.latency_s for o in outcomes[1:]]
    return [
        o.latency_s
        for o, s in zip(outcomes, steps, strict=True)
        if f"{s['out_kind']}->{s['in_kind']}" == transition
    ]


async def _in_turn(api_base: str, sequence: list[str], body: dict[str, Any]) -> list[Outcome]:
    async with client() as http:
        return await in_turn(http, api_base, sequence, body)


def swap_steps(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One record per model brought in: the drain and unload/sleep before it, then its load/wake.

    ``out_s`` is 0 for a load that evicted nothing (the first one); unloads after the last
    load (the gateway's shutdown) belong to no swap and are left out.
    """
    records: list[dict[str, Any]] = []
    drain = out = 0.0
    out_kind = None
    for event in events:
        name, seconds = event.get("event"), float(event.get("seconds") or 0.0)
        if name == "drain":
            drain += seconds
        elif name in ("unload", "sleep"):
            out, out_kind = out + seconds, name
        elif name in ("load_end", "wake"):
            in_kind = "load" if name == "load_end" else "wake"
            records.append(_step(event, in_kind, seconds, drain, out, out_kind))
            drain = out = 0.0
            out_kind = None
        elif name in ("load_failed", "wake_failed"):
            records.append(
                {**_step(event, "failed", seconds, drain, out, out_kind), "failed": True}
            )
    return records


def _step(
    event: dict[str, Any], in_kind: str, seconds: float, drain: float, out: float, out_kind: Any
) -> dict[str, Any]:
    return {
        "model": event.get("model"),
        "in_kind": in_kind,
        "in_s": round(seconds, 3),
        "out_kind": out_kind,
        "out_s": round(out, 3),
        "drain_s": round(drain, 3),
        "total_s": round(drain + out + seconds, 3),
    }
