"""Client side of the gateway benchmark: timed chat requests, bursts, replayed schedules, stats."""

from __future__ import annotations

import asyncio
import math
import random
import statistics
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import httpx

REQUEST_TIMEOUT_S = 900.0


@dataclass(frozen=True)
class Outcome:
    """One request: when it was due, sent and answered (seconds from the run's start)."""

    model: str
    status: int
    due_s: float
    start_s: float
    end_s: float
    completion_tokens: int
    error: str | None = None

    @property
    def ok(self) -> bool:
        """Answered 200."""
        return self.status == 200

    @property
    def latency_s(self) -> float:
        """From when the request was due to its last byte."""
        return self.end_s - self.due_s

    def as_dict(self) -> dict[str, Any]:
        """Plain data, with the latency, rounded to milliseconds."""
        data = asdict(self)
        for key in ("due_s", "start_s", "end_s"):
            data[key] = round(data[key], 4)
        data["latency_s"] = round(self.latency_s, 4)
        return data


@dataclass(frozen=True)
class Arrival:
    """One request of a schedule: its model and when it arrives."""

    at_s: float
    model: str


def client() -> httpx.AsyncClient:
    """An HTTP client for loopback servers: no proxies from the environment, long timeouts."""
    return httpx.AsyncClient(
        timeout=httpx.Timeout(REQUEST_TIMEOUT_S, connect=10.0),
        limits=httpx.Limits(max_connections=256, max_keepalive_connections=64),
        trust_env=False,
    )


def chat_body(model: str, prompt: str, max_tokens: int, **extra: Any) -> dict[str, Any]:
    """A chat request with temperature 0 and a fixed answer length."""
    return {
        "model": model,
        "messages": [{"role": "user", "content": prompt}],
        "max_tokens": max_tokens,
        "temperature": 0,
        **extra,
    }


async def chat(
    http: httpx.AsyncClient, api_base: str, body: dict[str, Any], t0: float, due_s: float = 0.0
) -> Outcome:
    """Send one chat completion and time it (never raises for HTTP failures)."""
    start = time.monotonic() - t0
    model = str(body.get("model"))
    try:
        reply = await http.post(f"{api_base}/chat/completions", json=body)
    except httpx.HTTPError as err:
        end = time.monotonic() - t0
        return Outcome(model, 0, due_s, start, end, 0, repr(err))
    end = time.monotonic() - t0
    if reply.status_code != 200:
        return Outcome(model, reply.status_code, due_s, start, end, 0, reply.text[:300])
    usage = reply.json().get("usage") or {}
    return Outcome(model, 200, due_s, start, end, int(usage.get("completion_tokens") or 0))


@dataclass(frozen=True)
class Burst:
    """Requests sent all at once: the wall time until the last answer and each outcome."""

    wall_s: float
    outcomes: list[Outcome]

    @property
    def tokens(self) -> int:
        """Completion tokens of every answer."""
        return sum(o.completion_tokens for o in self.outcomes)

    @property
    def tokens_per_s(self) -> float:
        """Completion tokens per second of wall time."""
        return self.tokens / self.wall_s if self.wall_s > 0 else 0.0


async def burst(http: httpx.AsyncClient, api_base: str, bodies: Sequence[dict[str, Any]]) -> Burst:
    """Send every body at once and wait for all the answers."""
    t0 = time.monotonic()
    outcomes = await asyncio.gather(*(chat(http, api_base, body, t0) for body in bodies))
    return Burst(time.monotonic() - t0, list(outcomes))


async def replay(
    http: httpx.AsyncClient, api_base: str, schedule: Sequence[Arrival], body: dict[str, Any]
) -> list[Outcome]:
    """Send ``body`` (with each arrival's model) at each arrival's time; the outcomes."""
    t0 = time.monotonic()

    async def one(arrival: Arrival) -> Outcome:
        await asyncio.sleep(max(0.0, arrival.at_s - (time.monotonic() - t0)))
        return await chat(http, api_base, {**body, "model": arrival.model}, t0, arrival.at_s)

    return list(await asyncio.gather(*(one(a) for a in schedule)))


async def in_turn(
    http: httpx.AsyncClient, api_base: str, models: Sequence[str], body: dict[str, Any]
) -> list[Outcome]:
    """Send ``body`` to each model in turn, each after the previous answer."""
    t0 = time.monotonic()
    outcomes = []
    for model in models:
        due = time.monotonic() - t0
        outcomes.append(await chat(http, api_base, {**body, "model": model}, t0, due))
    return outcomes


def mixed_schedule(
    models: Sequence[str], requests: int, window_s: float, seed: int
) -> list[Arrival]:
    """``requests`` arrivals over about ``window_s`` (Poisson), each for a random model."""
    rng = random.Random(seed)  # noqa: S311 (a reproducible workload, not a secret)
    gap = window_s / max(requests, 1)
    at, arrivals = 0.0, []
    for _ in range(requests):
        arrivals.append(Arrival(round(at, 4), rng.choice(list(models))))
        at += rng.expovariate(1 / gap)
    return arrivals


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) with linear interpolation between order statistics."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    low, high = math.floor(rank), math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def median(values: Sequence[float]) -> float:
    """The median, or NaN for no values."""
    return statistics.median(values) if values else math.nan


def ratio(numerator: float, denominator: float, *, digits: int) -> float | None:
    """``numerator / denominator`` rounded to ``digits`` decimals; None over zero."""
    return round(numerator / denominator, digits) if denominator else None


def latency_summary(outcomes: Sequence[Outcome]) -> dict[str, float]:
    """p50, p95, mean and max latency (s) of the successful requests."""
    latencies = [o.latency_s for o in outcomes if o.ok]
    return {
        "p50_s": round(percentile(latencies, 50), 3),
        "p95_s": round(percentile(latencies, 95), 3),
        "mean_s": round(statistics.fmean(latencies), 3) if latencies else math.nan,
        "max_s": round(max(latencies), 3) if latencies else math.nan,
    }
